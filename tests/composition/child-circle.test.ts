import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Circle } from "../../src/circle/circle.js";
import {
  behaviorGate,
  callEntityGate,
  doneGate,
  gateRegistry,
  readGate,
} from "../../src/circle/gates/index.js";
import { createBashMedium } from "../../src/circle/mediums/bash/index.js";
import { DefaultCantrip as Cantrip } from "../../src/default-cantrip.js";
import type { GateLookup, SpawnConfig } from "../../src/circle/spawn/index.js";
import type { CastResult } from "../../src/core/result.js";
import type { Loom } from "../../src/loom/core/index.js";
import { IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

const call = (args: Record<string, unknown>) => ({ tool_calls: [{ gate: "call_entity", args }] });
const finish = { tool_calls: [{ gate: "done", args: { answer: "parent done" } }] };

/** The registry as the loader hands it to call_entity (built-ins, no test gates). */
const registry: GateLookup = {
  free: (name) =>
    gateRegistry[name]?.dependencies.length === 0
      ? [gateRegistry[name].create({}, { baseDir: "/nowhere" })].flat()[0]
      : undefined,
  isFree: (name) => gateRegistry[name]?.dependencies.length === 0,
  dependencies: (name) => gateRegistry[name]?.dependencies,
  names: () => Object.keys(gateRegistry),
};

/** The parent's first gate call: what call_entity answered. */
const firstCall = (result: CastResult<Loom>) =>
  result.loom.turns().find((t) => t.entity_id === result.entityId)!.gate_calls[0]!;
const childTurns = (result: CastResult<Loom>) =>
  result.loom.turns().filter((t) => t.entity_id !== result.entityId);

/** A child that calls `gate` with `args` once, then answers with what it observed. */
const caller = (gate: string, args: Record<string, unknown>) =>
  new IntentLLM("worker", (_i, turn, messages) =>
    turn === 1
      ? { call: gate, args }
      : { done: String(messages.filter((m) => m.role === "tool").at(-1)?.content) },
  );

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "child-circle-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("a child's circle is its own (COMP-1, COMP-7)", () => {
  it("gives a child a gate the parent lacks when call_entity offers it", async () => {
    const docs = folder({ "a.txt": "alpha" });
    const spawn: SpawnConfig = {
      registry,
      offered: [readGate({ root: docs })],
      llms: llmSource({}, { 1: caller("read", { path: "a.txt" }) }),
    };
    const parent = parentCantrip({
      llm: scripted([
        { tool_calls: [{ gate: "read", args: { path: "a.txt" } }] },
        call({ intent: "read a.txt", gates: ["read"] }),
        finish,
      ]),
      spawn,
    });
    const result = await parent.cast("x");
    const [own, delegated] = result.loom.turns().filter((t) => t.entity_id === result.entityId);
    expect(own!.gate_calls[0]).toMatchObject({ gate_name: "read", is_error: true }); // not the parent's
    expect(delegated!.gate_calls[0]).toMatchObject({ result: "alpha", is_error: false });
    expect(childTurns(result)[0]!.gate_calls[0]).toMatchObject({
      gate_name: "read",
      result: "alpha",
    });
  });

  it("gives a child a registry gate that needs no configuration, though the parent lacks it", async () => {
    const withStamp: GateLookup = {
      free: (name) =>
        name === "stamp"
          ? behaviorGate({ name, behavior: { result: "stamped" } })
          : registry.free(name),
      isFree: (name) => name === "stamp" || registry.isFree(name),
      dependencies: (name) => (name === "stamp" ? [] : registry.dependencies(name)),
      names: () => [...registry.names(), "stamp"],
    };
    const parent = parentCantrip({
      llm: scripted([
        { tool_calls: [{ gate: "stamp", args: {} }] },
        call({ intent: "stamp it", gates: ["stamp"] }),
        call({ intent: "stamp it without naming it" }),
        finish,
      ]),
      spawn: { registry: withStamp, llms: llmSource({}, { 1: caller("stamp", {}) }) },
    });
    const result = await parent.cast("x");
    const [own, named, unnamed] = result.loom
      .turns()
      .filter((t) => t.entity_id === result.entityId);
    expect(own!.gate_calls[0]!.result).toMatch(/unknown gate "stamp"/);
    expect(named!.gate_calls[0]!.result).toBe("stamped");
    // Without gates named, the child has the parent's gates: stamp is not among them.
    expect(unnamed!.gate_calls[0]!.result).toMatch(/unknown gate "stamp"/);
  });

  it("refuses a gate nobody registered, naming what a child may have", async () => {
    const parent = parentCantrip({
      llm: scripted([call({ intent: "x", gates: ["teleport"] }), finish]),
      spawn: { registry, offered: [readGate({ root: "/tmp" })] },
    });
    const result = await parent.cast("x");
    expect(firstCall(result)).toMatchObject({ is_error: true });
    expect(firstCall(result).result).toMatch(
      /^call_entity: unknown gate "teleport"; a child may name: .*\bcall_entity\b.*\bdone\b.*\becho\b.*\bread\b/,
    );
    expect(childTurns(result)).toHaveLength(0);
  });

  it("refuses a registered gate that needs a root nobody declared: a proposal cannot configure one", async () => {
    const parent = parentCantrip({
      llm: scripted([call({ intent: "x", gates: ["list_dir"] }), finish]),
      spawn: { registry },
    });
    const result = await parent.cast("x");
    expect(firstCall(result).result).toMatch(
      /gate "list_dir" is not available to a child: it takes root, which neither this circle nor call_entity's gates declare/,
    );
    expect(childTurns(result)).toHaveLength(0);
  });

  it("prefers the parent's own gate to an offered one of the same name", async () => {
    const mine = behaviorGate({ name: "probe", behavior: { result: "the parent's" } });
    const offered = behaviorGate({ name: "probe", behavior: { result: "the offered" } });
    const parent = parentCantrip({
      llm: scripted([call({ intent: "x", gates: ["probe"] }), finish]),
      gates: [mine],
      spawn: { registry, offered: [offered], llms: llmSource({}, { 1: caller("probe", {}) }) },
    });
    expect(firstCall(await parent.cast("x")).result).toBe("the parent's");
  });
});

describe("child_medium_allowlist (seed 002 Wards)", () => {
  const codeChild = () => new IntentLLM("coder", () => ({ code: "done('from code')" }));

  it("refuses a child in a medium the list does not name, with a structured error; no child runs", async () => {
    const parent = parentCantrip({
      llm: scripted([call({ intent: "x", medium: "code" }), finish]),
      wards: [{ max_turns: 3 }, { child_medium_allowlist: ["conversation"] }],
      spawn: { llms: llmSource({}, { 1: codeChild() }) },
    });
    const result = await parent.cast("x");
    expect(firstCall(result)).toMatchObject({ is_error: true });
    expect(firstCall(result).result).toBe(
      'call_entity refused (child_medium_not_allowed): a child in the code medium is not allowed here; child_medium_allowlist: [conversation]; ask for medium: "conversation"',
    );
    expect(childTurns(result)).toHaveLength(0);
    expect(result).toMatchObject({ terminated: true, result: "parent done" });
  });

  it("lets a listed medium through, and judges the medium a child inherits as well", async () => {
    const parent = parentCantrip({
      llm: scripted([call({ intent: "a", medium: "code" }), call({ intent: "b" }), finish]),
      wards: [{ max_turns: 4 }, { child_medium_allowlist: ["code"] }],
      spawn: { llms: llmSource({}, { 1: codeChild() }) },
    });
    const result = await parent.cast("x");
    const [a, b] = result.loom.turns().filter((t) => t.entity_id === result.entityId);
    expect(a!.gate_calls[0]).toMatchObject({ result: "from code", is_error: false });
    // No medium named: the parent's (conversation), which the list does not allow.
    expect(b!.gate_calls[0]!.result).toMatch(/a child in the conversation medium is not allowed/);
  });

  it("is an Error in the parent's code, and a batch slot's { error }", async () => {
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        {
          code:
            "let m; try { call_entity({ intent: 'x', medium: 'bash' }) } catch (e) { m = e.message }\n" +
            "done([m, call_entity_batch([{ intent: 'y', medium: 'bash' }, { intent: 'z', medium: 'code' }])])",
        },
      ]),
      wards: [{ max_turns: 3 }, { child_medium_allowlist: ["code", "conversation"] }],
      spawn: { llms: llmSource({}, { 1: codeChild() }) },
    });
    const [caught, [slot, answer]] = (await parent.cast("x")).result as [
      string,
      [unknown, unknown],
    ];
    expect(caught).toMatch(/child_medium_not_allowed.*bash medium.*\[code, conversation\]/);
    expect(Object.keys(slot as object)).toEqual(["error"]);
    expect((slot as { error: string }).error).toMatch(/child_medium_not_allowed/);
    expect(answer).toBe("from code");
  });

  it("composes by intersection down the tree: a child's own list narrows its children", async () => {
    // Depth 2: the parent allows conversation and code; the child adds [code, bash] → [code].
    const child = new IntentLLM("middle", (intent, turn, messages) =>
      turn === 1
        ? { call: "call_entity", args: { intent: "leaf", medium: "conversation" } }
        : turn === 2
          ? { call: "call_entity", args: { intent: "leaf", medium: "code" } }
          : {
              done: messages
                .filter((m) => m.role === "tool")
                .map((m) => m.content)
                .join(" | "),
            },
    );
    const leaf = new IntentLLM("leaf", () => ({ code: "done('leaf')" }));
    const parent = parentCantrip({
      llm: scripted([
        call({ intent: "middle", wards: [{ child_medium_allowlist: ["code", "bash"] }] }),
        finish,
      ]),
      wards: [
        { max_turns: 5 },
        { max_depth: 2 },
        { child_medium_allowlist: ["conversation", "code"] },
      ],
      spawn: { llms: llmSource({}, { 1: child, 2: leaf }) },
    });
    const result = await parent.cast("x");
    expect(firstCall(result).result).toMatch(
      /^call_entity refused \(child_medium_not_allowed\): a child in the conversation medium is not allowed here; child_medium_allowlist: \[code\].* \| leaf$/,
    );
  });
});

describe("a bash child (COMP-1)", () => {
  it("of a bash circle works in the parent's workspace, with the parent's isolation", async () => {
    const root = folder({ "here.txt": "the parent's workspace" });
    const child = new IntentLLM("sh", () => ({
      call: "bash",
      args: { command: 'done "$(pwd) $(cat here.txt)"' },
    }));
    const parent = new Cantrip({
      llm: scripted([
        {
          tool_calls: [
            {
              gate: "bash",
              args: { command: 'done "$(call_entity \'{"intent":"where","medium":"bash"}\')"' },
            },
          ],
        },
      ]),
      identity: { systemPrompt: "parent" },
      circle: new Circle({
        medium: createBashMedium({ root, writable: false, sandbox: "passthrough" }),
        gates: [doneGate(), callEntityGate({ llms: llmSource({}, { 1: child }) })],
        wards: [{ max_turns: 2 }],
      }),
    });
    const result = await parent.cast("x");
    expect(result.result).toBe(`${root} the parent's workspace`);
  });
});
