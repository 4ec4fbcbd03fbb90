import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { dnaCommand, dnaVerifyCommand } from "../../src/cli/dna.js";
import { flowCommand } from "../../src/cli/flow-run.js";
import { EXIT } from "../../src/cli/io.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "flow-cli-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const GREETER = "spells/greeter-flow.yaml";
const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);

describe("spell flow", () => {
  it("prints the emitted payloads as JSONL, one cycle per input line (stdin)", async () => {
    const o = io();
    const stdin = Readable.from(['{"text":"hi there"}\n', "\n", '{"text":"bye"}\n']);
    expect(await flowCommand(GREETER, { loom: "memory" }, o, stdin)).toBe(EXIT.ok);
    expect(lines(o.out)).toEqual([{ text: "Hello! Nice to hear from you." }, { text: "Bye!" }]);
  });

  it("--trace prints each cycle's normalized trace; a line that is not JSON is skipped and exits 3", async () => {
    const o = io();
    const input = write("in.jsonl", '{"text":"yo"}\nnot json\n{"nothing":1}\n');
    expect(await flowCommand(GREETER, { in: input, trace: true, loom: "memory" }, o)).toBe(
      EXIT.invalid,
    );
    expect(o.err).toMatch(/input line 2: not JSON/);
    expect(lines(o.out)).toEqual([
      {
        message: 1,
        receivers: [
          {
            route: "idle --[greeted]--> talking",
            key: "alice",
            state: "idle",
            action: "STAY",
            trigger: null,
          },
        ],
        emissions: [{ route: "idle", key: "alice", payload: { text: "Say hi first." } }],
        drops: [],
        tape: [],
      },
      {
        message: 3,
        dropped: { by: "receive_hook", at: "hooks.receive[0]" },
        receivers: [],
        emissions: [],
        drops: [],
        tape: [],
      },
    ]);
  });

  it("refuses a document that is not a flow, at its kind:", async () => {
    const o = io();
    expect(await flowCommand("grimoire/04-cantrip.yaml", {}, o, Readable.from([]))).toBe(
      EXIT.invalid,
    );
    expect(o.err).toMatch(/04-cantrip\.yaml:3:7: this is a kind: cantrip document, not a flow/);
  });
});

describe("spell dna", () => {
  it("prints the same DNA every time, without any API key", async () => {
    const a = io();
    const b = io();
    expect(await dnaCommand(GREETER, {}, a)).toBe(EXIT.ok);
    expect(await dnaCommand(GREETER, {}, b)).toBe(EXIT.ok);
    expect(a.out).toBe(b.out);
    const dna = JSON.parse(a.out) as { profile: string; registrations: { kind: string }[] };
    expect(dna.profile).toBe("summoner-core/0.1.0");
    expect(dna.registrations.map((r) => r.kind)).toEqual([
      "hook",
      "receiver",
      "receiver",
      "receiver",
      "sender",
      "sender",
      "sender",
    ]);
  });

  it("--sign then verify; a tampered file fails verification with exit 1", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const key = write("key.pem", privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    const pub = write("pub.pem", publicKey.export({ type: "spki", format: "pem" }).toString());
    const o = io();
    expect(await dnaCommand(GREETER, { sign: key }, o)).toBe(EXIT.ok);
    const signed = write("signed.json", o.out);
    const v = io();
    expect(await dnaVerifyCommand(signed, { key: pub }, v)).toBe(EXIT.ok);
    expect(v.out).toMatch(/verified with the given key; profile summoner-core\/0\.1\.0/);
    const tampered = write(
      "tampered.json",
      readFileSync(signed, "utf8").replace('"multi": false', '"multi": true'),
    );
    const t = io();
    expect(await dnaVerifyCommand(tampered, { key: pub }, t)).toBe(EXIT.failed);
    expect(t.err).toMatch(/not verified: the signature does not match/);
  });

  it("a missing key file is a clear error", async () => {
    const o = io();
    expect(await dnaCommand(GREETER, { sign: join(dir, "nope.pem") }, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/cannot read the key .*nope\.pem/);
  });
});

describe("the bundled CLI", () => {
  // The bundle is built by `npm run build` (npm ci runs it); these run the real bin end to end.
  const bin = (args: string[], input: string) =>
    spawnSync(process.execPath, ["bin/run.js", ...args], {
      input,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });

  it("spell flow reads stdin and spell run runs a flow the same way", () => {
    const flow = bin(["flow", GREETER, "--loom", "memory"], '{"text":"hey you"}\n');
    expect(flow.status).toBe(0);
    expect(flow.stdout).toBe('{"text":"Hello! Nice to hear from you."}\n');
    const run = bin(["run", GREETER, "--loom", "memory"], '{"text":"nope"}\n');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('{"text":"Say hi first."}\n');
  });

  it("casts record into the loom file given with --loom", () => {
    const loom = join(dir, "flow-loom.jsonl");
    expect(bin(["flow", GREETER, "--loom", loom], '{"text":"hi"}\n').status).toBe(0);
    const turns = readFileSync(loom, "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"turn"'));
    expect(turns).toHaveLength(1);
  });
});
