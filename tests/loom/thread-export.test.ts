import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  createIdentity,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
import { EXIT } from "../../src/cli/io.js";
import { loomThreadCommand } from "../../src/cli/loom-tools.js";
import { io } from "../support/io.js";

const KEY = "sk-proj-0123456789abcdefghijklmnopqrstuv";

/** One cast of two turns (an echo carrying a key, then done) in a JSONL loom, written raw. */
async function recorded() {
  const path = join(mkdtempSync(join(tmpdir(), "thread-")), "loom.jsonl");
  const loom = new Loom(new JsonlStore(path));
  const r = await new Cantrip({
    llm: new ScriptedLLM({
      responses: [
        { tool_calls: [{ gate: "echo", args: { text: `key ${KEY}` } }] },
        { tool_calls: [{ gate: "done", args: { answer: "4" } }] },
      ],
    }),
    identity: createIdentity({ systemPrompt: "You add numbers." }),
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 3 }] }),
    loom,
  }).cast("What is 2 + 2?");
  loom.annotateReward(r.lastTurnId!, 1, "right");
  loom.close();
  return { path, last: r.lastTurnId! };
}

const run = async (format: "text" | "jsonl" | "openai" | "anthropic", redact = true) => {
  const { path, last } = await recorded();
  const o = io();
  o.env = { OPENAI_API_KEY: KEY };
  expect(await loomThreadCommand(path, { turn: last, format, redact }, o)).toBe(EXIT.ok);
  return o.out;
};

describe("spell loom thread", () => {
  it("--format openai: one JSON line of chat messages a fine-tuning job reads, the key redacted", async () => {
    const out = await run("openai");
    expect(out.trim().split("\n")).toHaveLength(1);
    const { messages } = JSON.parse(out) as { messages: Record<string, unknown>[] };
    expect(messages.map((m) => m["role"])).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
    expect(messages[0]).toEqual({ role: "system", content: "You add numbers." });
    expect(messages[1]).toEqual({ role: "user", content: "What is 2 + 2?" });
    const call = (messages[2]!["tool_calls"] as Record<string, unknown>[])[0]!;
    expect(call).toMatchObject({ type: "function", function: { name: "echo" } });
    expect(messages[3]).toMatchObject({ role: "tool", tool_call_id: call["id"] });
    expect(out).not.toContain(KEY);
    expect(out).toContain("[REDACTED]");
  });

  it("--format anthropic: system apart, tool_use and tool_result blocks, roles alternating", async () => {
    const out = await run("anthropic");
    const doc = JSON.parse(out) as {
      system: string;
      messages: { role: string; content: { type: string; [k: string]: unknown }[] }[];
    };
    expect(doc.system).toBe("You add numbers.");
    const roles = doc.messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(doc.messages[1]!.content[0]).toMatchObject({ type: "tool_use", name: "echo" });
    expect(doc.messages[1]!.content[0]!["input"]).toEqual({ text: "key [REDACTED]" });
    expect(doc.messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: doc.messages[1]!.content[0]!["id"],
    });
    expect(out).not.toContain(KEY);
  });

  it("--format jsonl: one message per line; text: a transcript with the reward", async () => {
    const lines = (await run("jsonl")).trim().split("\n");
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[0]!)).toEqual({ role: "system", content: "You add numbers." });
    const text = await run("text");
    expect(text).toMatch(/^system: You add numbers\.\n/);
    expect(text).toMatch(/\nuser: What is 2 \+ 2\?\n/);
    expect(text).toMatch(/\nassistant → echo\(\{"text":"key \[REDACTED\]"\}\)\n/);
    expect(text).toMatch(/\nreward: 1 \(right\)\n$/);
    expect(text).not.toContain(KEY);
  });

  it("--no-redact is the owner's copy: the key as recorded", async () => {
    const out = await run("openai", false);
    expect(out).toContain(KEY);
  });

  it("an unknown turn is an error naming it", async () => {
    const { path } = await recorded();
    const o = io();
    expect(await loomThreadCommand(path, { turn: "turn_x", format: "text", redact: true }, o)).toBe(
      EXIT.invalid,
    );
    expect(o.err).toMatch(/no turn turn_x in the loom/);
  });
});
