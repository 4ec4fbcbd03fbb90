import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  Flow,
  flowDna,
  PROFILE_VERSION,
  signDna,
  stay,
  verifyDna,
} from "../../src/flows/index.js";

const build = (order: "ab" | "ba") => {
  const flow = new Flow({ name: "demo" });
  const regs = [
    () =>
      flow.receive(
        "x  -->y",
        function onX() {
          return stay();
        },
        { priority: [1] },
      ),
    () =>
      flow.send(
        "y",
        function reply() {
          return "hi";
        },
        {
          actions: ["MOVE"],
          triggers: ["ok"],
          multi: true,
          identity: { module: "demo.ts" },
        },
      ),
    () =>
      flow.hook(
        "receive",
        function check(p) {
          return p;
        },
        { priority: [0] },
      ),
    () =>
      flow.hook("send", function sign(p) {
        return p;
      }),
  ];
  for (const r of order === "ab" ? regs : [...regs].reverse()) r();
  return flow;
};

describe("DNA (§7)", () => {
  it("gives the same bytes whatever order a sender's filter lists are written in", () => {
    const dna = (actions: ("MOVE" | "STAY" | "TEST")[], triggers: (string | null)[]) =>
      canonicalJson(flowDna(new Flow({ name: "f" }).send("a", () => "x", { actions, triggers })));
    expect(dna(["MOVE", "STAY"], ["ok", null, "b"])).toBe(dna(["STAY", "MOVE"], ["b", "ok", null]));
    expect(dna(["MOVE"], ["ok"])).not.toBe(dna(["STAY"], ["ok"]));
  });

  it("lists every registration with kind, canonical route, priority, handler identity and sender filters", () => {
    const dna = flowDna(build("ab"));
    expect(dna.version).toBe(PROFILE_VERSION);
    expect(dna.profile).toBe(`summoner-core/${PROFILE_VERSION}`);
    expect(dna.registrations).toEqual([
      {
        kind: "hook",
        direction: "receive",
        priority: [0],
        handler: { module: "demo", function: "check", runtime: "ts" },
      },
      {
        kind: "hook",
        direction: "send",
        priority: [],
        handler: { module: "demo", function: "sign", runtime: "ts" },
      },
      {
        kind: "receiver",
        route: "x --[]--> y",
        priority: [1],
        handler: { module: "demo", function: "onX", runtime: "ts" },
      },
      {
        kind: "sender",
        route: "y",
        priority: [],
        handler: { module: "demo.ts", function: "reply", runtime: "ts" },
        actions: ["MOVE"],
        triggers: ["ok"],
        multi: true,
      },
    ]);
  });

  it("is deterministic: the same registrations in another order give the same bytes", () => {
    expect(canonicalJson(flowDna(build("ab")))).toBe(canonicalJson(flowDna(build("ba"))));
  });

  it("signs with Ed25519 and verifies; any change to the DNA breaks the signature", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const pub = publicKey.export({ type: "spki", format: "pem" }).toString();
    const signed = signDna(flowDna(build("ab")), pem);
    expect(verifyDna(signed, pub)).toEqual({ ok: true });
    expect(verifyDna(signed)).toEqual({ ok: true });
    const tampered = structuredClone(signed);
    tampered.dna.registrations[2]!.route = "x --[]--> z";
    const bad = verifyDna(tampered, pub);
    expect(bad.ok).toBe(false);
    expect(bad.reason).toMatch(/does not match/);
    const other = generateKeyPairSync("ed25519")
      .publicKey.export({ type: "spki", format: "pem" })
      .toString();
    expect(verifyDna(signed, other).ok).toBe(false);
  });

  it("pins the profile's major version", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const dna = { ...flowDna(build("ab")), version: "9.0.0" };
    const pinned = verifyDna(signDna(dna, pem));
    expect(pinned.ok).toBe(false);
    expect(pinned.reason).toMatch(/9\.0\.0/);
  });

  it("refuses a key that is not Ed25519", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(() => signDna(flowDna(build("ab")), pem)).toThrow(/Ed25519/);
  });
});
