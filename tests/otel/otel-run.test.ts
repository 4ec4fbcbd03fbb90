import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { io } from "../support/io.js";
import { attr, otlpReceiver, type OtlpSpan, type Receiver } from "./receiver.js";

const SECRET = "sk-otel-planted-4f9a2c7e1b";
const dir = mkdtempSync(join(tmpdir(), "otel-run-"));
writeFileSync(
  join(dir, "child.yaml"),
  `
llm: { provider: scripted, name: child-model, responses: [{ tool_calls: [{ gate: done, args: { answer: child says hi } }], usage: { prompt_tokens: 5, completion_tokens: 2 } }] }
identity: { system_prompt: You are the child. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`,
);
const spell = join(dir, "spell.yaml");
writeFileSync(
  spell,
  `
name: otel-parent
llm:
  provider: scripted
  responses:
    - content: "checking the key \${env:OTEL_TEST_SECRET}"
      tool_calls: [{ gate: echo, args: { text: "the key is \${env:OTEL_TEST_SECRET}" } }]
      usage: { prompt_tokens: 40, completion_tokens: 10, cached_tokens: 8 }
    - tool_calls: [{ gate: call_entity, args: { intent: say hi } }]
      usage: { prompt_tokens: 50, completion_tokens: 6 }
    - tool_calls: [{ gate: nonexistent_gate, args: {} }]
      usage: { prompt_tokens: 55, completion_tokens: 4 }
    - tool_calls: [{ gate: done, args: { answer: all done } }]
      usage: { prompt_tokens: 60, completion_tokens: 3 }
identity: { system_prompt: You are the parent. }
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

async function run(flags: Record<string, unknown>): Promise<OtlpSpan[]> {
  const o = io();
  o.env = { OTEL_TEST_SECRET: SECRET };
  const code = await runCommand(spell, { loom: "memory", quiet: true, ...flags }, o);
  expect(o.err).not.toContain("warning: --otel");
  expect(code).toBe(EXIT.ok);
  return receiver.spans();
}

const named = (spans: OtlpSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: OtlpSpan[], name: string): OtlpSpan => {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe("spell run --otel", () => {
  it("sends invoke_agent, chat and execute_tool spans, the child nested under its gate call", async () => {
    const spans = await run({ otel: receiver.url });
    const root = one(spans, "invoke_agent otel-parent");
    expect(root.parentSpanId ?? "").toBe("");
    expect(attr(root, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(attr(root, "gen_ai.usage.input_tokens")).toBe(205);

    const chats = spans.filter((s) => s.name.startsWith("chat "));
    const parentChats = chats.filter((s) => s.parentSpanId === root.spanId);
    expect(parentChats).toHaveLength(4);
    const first = parentChats.sort((a, b) =>
      a.startTimeUnixNano.localeCompare(b.startTimeUnixNano),
    )[0]!;
    expect(attr(first, "gen_ai.operation.name")).toBe("chat");
    expect(attr(first, "gen_ai.provider.name")).toBe("scripted");
    expect(attr(first, "gen_ai.request.model")).toBe(first.name.slice("chat ".length));
    expect(attr(first, "gen_ai.usage.input_tokens")).toBe(40);
    expect(attr(first, "gen_ai.usage.output_tokens")).toBe(10);
    expect(attr(first, "gen_ai.usage.cache_read.input_tokens")).toBe(8);
    expect(attr(first, "gen_ai.response.finish_reasons")).toEqual(["tool_call"]);

    const echo = one(spans, "execute_tool echo");
    expect(echo.parentSpanId).toBe(root.spanId);
    expect(attr(echo, "gen_ai.tool.name")).toBe("echo");
    expect(echo.status?.code ?? 0).not.toBe(2);

    const delegate = one(spans, "execute_tool call_entity");
    const child = spans.find((s) => s.name.startsWith("invoke_agent ") && s !== root)!;
    expect(child.parentSpanId).toBe(delegate.spanId);
    expect(child.traceId).toBe(root.traceId);
    const dones = named(spans, "execute_tool done");
    expect(dones.map((s) => s.parentSpanId).sort()).toEqual([root.spanId, child.spanId].sort());
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    expect(chats.filter((s) => s.parentSpanId === child.spanId)).toHaveLength(1);

    const failed = one(spans, "execute_tool nonexistent_gate");
    expect(failed.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(attr(failed, "error.type")).toBe("gate_error");
  });

  it("sends no content without --otel-content, and never the spell's secrets", async () => {
    await run({ otel: receiver.url });
    const all = receiver.bodies.join("\n");
    expect(all.length).toBeGreaterThan(0);
    for (const word of ["checking the key", "the key is", "say hi", "all done", "child says hi"])
      expect(all).not.toContain(word);
    expect(all).not.toContain("gen_ai.tool.call.arguments");
    expect(all).not.toContain(SECRET);
  });

  it("with --otel-content sends utterances and gate calls, redacted", async () => {
    const spans = await run({ otel: receiver.url, "otel-content": true });
    const echo = one(spans, "execute_tool echo");
    expect(String(attr(echo, "gen_ai.tool.call.arguments"))).toContain("the key is");
    expect(String(attr(echo, "gen_ai.tool.call.result"))).toContain("the key is");
    expect(receiver.bodies.join("\n")).toContain("checking the key");
    expect(receiver.bodies.join("\n")).not.toContain(SECRET);
  });

  it("reads OTEL_EXPORTER_OTLP_ENDPOINT as a base URL; nothing is sent when neither is set", async () => {
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    expect(await runCommand(spell, { loom: "memory", quiet: true }, o)).toBe(EXIT.ok);
    expect(named(receiver.spans(), "invoke_agent otel-parent")).toHaveLength(1);
    const before = receiver.bodies.length;
    await run({});
    expect(receiver.bodies.length).toBe(before);
  });

  it("a collector that is not there is said once on stderr; the cast still succeeds", async () => {
    const gone = await otlpReceiver();
    await gone.close();
    // The exporter retries a refused connection until its timeout (10 s by default): 1 s here.
    vi.stubEnv("OTEL_EXPORTER_OTLP_TIMEOUT", "1000");
    onTestFinished(() => void vi.unstubAllEnvs());
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET };
    expect(await runCommand(spell, { loom: "memory", quiet: true, otel: gone.url }, o)).toBe(
      EXIT.ok,
    );
    // Spans and metrics go to the same collector: whichever export fails first is said, once.
    expect(o.err.match(/warning: --otel: (spans|metrics) not sent/g)).toHaveLength(1);
    expect(o.err).toMatch(/ECONNREFUSED/);
  });

  it("refuses an --otel value that is not an http URL (exit 3)", async () => {
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET };
    expect(await runCommand(spell, { loom: "memory", quiet: true, otel: "localhost" }, o)).toBe(
      EXIT.invalid,
    );
    expect(o.err).toMatch(/--otel localhost: not a URL/);
  });
});
