import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomOtelCommand } from "../../src/cli/otel/loom-otel.js";
import { runCommand } from "../../src/cli/run.js";
import { LOOM_FORMAT_VERSION } from "../../src/loom/records/index.js";
import { io } from "../support/io.js";
import { attr, otlpReceiver, type OtlpSpan, type Receiver } from "./receiver.js";

const SECRET = "sk-otel-loom-planted-77e1c0";
const dir = mkdtempSync(join(tmpdir(), "otel-loom-"));
writeFileSync(
  join(dir, "child.yaml"),
  `llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: child says hi } }] }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`,
);
const spell = join(dir, "spell.yaml");
writeFileSync(
  spell,
  `llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: echo, args: { text: "the key is \${env:OTEL_TEST_SECRET}" } }]
      usage: { prompt_tokens: 40, completion_tokens: 10 }
    - tool_calls: [{ gate: call_entity, args: { intent: say hi } }]
    - tool_calls: [{ gate: nonexistent_gate, args: {} }]
    - tool_calls: [{ gate: done, args: { answer: all done } }]
identity: {}
circle:
  gates: [done, echo, { call_entity: { spell: ./child.yaml } }]
  wards: [{ max_turns: 6 }]
intent: Greet through a child.
`,
);

let receiver: Receiver;
beforeEach(async () => {
  receiver = await otlpReceiver();
});
afterEach(() => receiver.close());

const nanos = (iso: string, plusMs = 0) => BigInt(Date.parse(iso) + plusMs) * 1_000_000n;

describe("spell loom otel", () => {
  it("sends a recorded loom as the live spans: names, the child under its gate call, errors", async () => {
    const loom = join(dir, "cast.jsonl");
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET };
    expect(await runCommand(spell, { loom, quiet: true }, o)).toBe(EXIT.ok);
    const sent = io();
    expect(await loomOtelCommand(loom, { to: receiver.url, name: "greeter" }, sent)).toBe(EXIT.ok);
    expect(sent.err).toMatch(/sent 2 entities/);
    const spans = receiver.spans();
    const root = spans.find((s) => s.name === "invoke_agent greeter")!;
    expect(root.parentSpanId ?? "").toBe("");
    const delegate = spans.find((s) => s.name === "execute_tool call_entity")!;
    expect(delegate.parentSpanId).toBe(root.spanId);
    const child = spans.find((s) => s.name === "invoke_agent greeter child")!;
    expect(child.parentSpanId).toBe(delegate.spanId);
    expect(
      spans.filter((s) => s.name.startsWith("chat ") && s.parentSpanId === root.spanId),
    ).toHaveLength(4);
    const failed = spans.find((s) => s.name === "execute_tool nonexistent_gate")!;
    expect(failed.status?.code).toBe(2);
    expect(attr(failed, "error.type")).toBe("gate_error");
    const body = receiver.bodies.join("\n");
    expect(body).not.toContain("the key is");
    expect(body).not.toContain(SECRET);
  });

  it("takes span times from the loom, and a gate call's started_at/duration_ms and llm when present", async () => {
    const loom = join(dir, "timed.jsonl");
    const at = "2026-01-02T03:04:05.000Z";
    const turn = {
      type: "turn",
      id: "t1",
      parent_id: null,
      cantrip_id: "c1",
      entity_id: "ent_a",
      role: "turn",
      sequence: 1,
      utterance: "u",
      observation: "o",
      gate_calls: [
        {
          gate_name: "echo",
          arguments: "{}",
          result: "x",
          is_error: false,
          started_at: "2026-01-02T03:04:04.500Z",
          duration_ms: 120,
        },
      ],
      metadata: {
        tokens_prompt: 7,
        tokens_completion: 3,
        tokens_cached: 2,
        duration_ms: 1000,
        timestamp: at,
      },
      llm: { provider: "anthropic", model: "claude-test" },
      reward: null,
      terminated: true,
      truncated: false,
      reason: "done",
    };
    writeFileSync(
      loom,
      [{ type: "loom", version: LOOM_FORMAT_VERSION, created: at }, turn]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n",
    );
    expect(await loomOtelCommand(loom, { to: receiver.url }, io())).toBe(EXIT.ok);
    const spans = receiver.spans();
    const byName = (n: string): OtlpSpan => spans.find((s) => s.name === n)!;
    const agent = byName("invoke_agent timed");
    expect(BigInt(agent.startTimeUnixNano)).toBe(nanos(at, -1000));
    expect(BigInt(agent.endTimeUnixNano)).toBe(nanos(at));
    const chat = byName("chat claude-test");
    expect(attr(chat, "gen_ai.provider.name")).toBe("anthropic");
    expect(attr(chat, "gen_ai.usage.cache_read.input_tokens")).toBe(2);
    expect(BigInt(chat.endTimeUnixNano)).toBe(nanos("2026-01-02T03:04:04.500Z"));
    const echo = byName("execute_tool echo");
    expect(BigInt(echo.startTimeUnixNano)).toBe(nanos("2026-01-02T03:04:04.500Z"));
    expect(BigInt(echo.endTimeUnixNano)).toBe(nanos("2026-01-02T03:04:04.500Z", 120));
  });

  it("--otel-content: a ${env:…} secret in a gate's arguments is redacted; the arguments are sent", async () => {
    const loom = join(dir, "content.jsonl");
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET };
    expect(await runCommand(spell, { loom, quiet: true }, o)).toBe(EXIT.ok);
    const sent = io();
    sent.env = { OTEL_TEST_SECRET: SECRET };
    const flags = { to: receiver.url, name: "greeter", "otel-content": true };
    expect(await loomOtelCommand(loom, flags, sent)).toBe(EXIT.ok);
    const echo = receiver.spans().find((s) => s.name === "execute_tool echo")!;
    expect(attr(echo, "gen_ai.tool.call.arguments")).toBe('{"text":"the key is [REDACTED]"}');
    const body = receiver.bodies.join("\n");
    expect(body).toContain("the key is");
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain(SECRET.slice(3, -3)); // no piece of it either
  });

  it("--otel-content: a provider key in the environment is redacted from gate arguments and results of any loom", async () => {
    // A loom written elsewhere (not redacted when it was recorded): the key of this environment
    // in a gate's arguments as written, JSON-escaped inside JSON, and in its result.
    const KEY = "sk-otel-provider-key-4f1d9c2a7b";
    const loom = join(dir, "foreign.jsonl");
    const call = {
      gate_name: "echo",
      arguments: JSON.stringify({ text: `key ${KEY}`, nested: JSON.stringify({ key: KEY }) }),
      result: `echoed ${KEY}`,
      is_error: false,
    };
    const turn = {
      type: "turn",
      id: "t1",
      parent_id: null,
      cantrip_id: "c1",
      entity_id: "ent_a",
      role: "turn",
      sequence: 1,
      utterance: `I will send ${KEY}`,
      observation: "o",
      gate_calls: [call],
      metadata: { timestamp: "2026-01-02T03:04:05.000Z" },
      reward: null,
      terminated: true,
      truncated: false,
      reason: "done",
    };
    writeFileSync(
      loom,
      [{ type: "loom", version: LOOM_FORMAT_VERSION, created: "2026-01-02T03:04:04.000Z" }, turn]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n",
    );
    const sent = io();
    sent.env = { OPENAI_API_KEY: KEY };
    expect(await loomOtelCommand(loom, { to: receiver.url, "otel-content": true }, sent)).toBe(
      EXIT.ok,
    );
    const echo = receiver.spans().find((s) => s.name === "execute_tool echo")!;
    expect(String(attr(echo, "gen_ai.tool.call.arguments"))).toContain("key [REDACTED]");
    expect(attr(echo, "gen_ai.tool.call.result")).toBe("echoed [REDACTED]");
    const body = receiver.bodies.join("\n");
    expect(body).not.toContain(KEY);
    expect(body).not.toContain(KEY.slice(3, -3));
  });

  it("needs a collector URL (exit 3)", async () => {
    const o = io();
    expect(await loomOtelCommand(join(dir, "timed.jsonl"), {}, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/no collector/);
  });
});
