/**
 * `spellbook/otel` as an attacker meets it: a library user who turns content on and gives no
 * redactor, a gate whose arguments hold a provider key (as written, base64, URL-encoded, in
 * JSON), a gate that answers a megabyte, and a hostile loom replayed with `loomSpans` (wrong
 * types, `__proto__` keys, huge strings, one entity of 60,000 turns). The key is a fake one set
 * in this process's environment only; spans go to an in-memory exporter or a stub tracer.
 */
import * as api from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  ScriptedLLM,
  createIdentity,
  doneGate,
  echoGate,
} from "../../src/index.js";
import type { LoomRecord } from "../../src/loom/records/index.js";
import { castSpans, loomSpans } from "../../src/otel/index.js";
import { MAX_CONTENT_CHARS } from "../../src/otel/attributes.js";

const KEY = "sk-ant-fakeOTELkey0123456789abcdefXYZ";
const saved = process.env["ANTHROPIC_API_KEY"];
afterEach(() => {
  if (saved === undefined) delete process.env["ANTHROPIC_API_KEY"];
  else process.env["ANTHROPIC_API_KEY"] = saved;
});

function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer("attack"), exporter, provider };
}

const attributeText = (exporter: InMemorySpanExporter): string[] =>
  exporter.getFinishedSpans().flatMap((s) => Object.values(s.attributes).map((v) => String(v)));

describe("castSpans with content on and no redactor of the user's", () => {
  it("sends no provider key of the environment, in any form, nor a key-shaped token", async () => {
    process.env["ANTHROPIC_API_KEY"] = KEY;
    const { tracer, exporter, provider } = memoryTracer();
    const spans = await castSpans(tracer, { name: "lib", model: "scripted/m1", content: true });
    const said = [
      KEY,
      Buffer.from(KEY).toString("base64"),
      encodeURIComponent(`key=${KEY}`),
      JSON.stringify({ key: KEY }),
      "Bearer abcdefghijklmnopqrstuvwxyz012345",
    ].join(" | ");
    const cantrip = new Cantrip({
      llm: new ScriptedLLM({
        responses: [
          { content: said, tool_calls: [{ gate: "echo", args: { text: said } }] },
          { tool_calls: [{ gate: "done", args: { answer: KEY } }] },
        ],
      }),
      identity: createIdentity({ systemPrompt: "Be brief." }),
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
    });
    await cantrip.cast("Say it.", { onEvent: spans.listener });
    spans.end();
    await provider.forceFlush();
    const text = attributeText(exporter).join("\n");
    expect(text).toContain("key%3D"); // content was sent at all…
    for (const form of [KEY, Buffer.from(KEY).toString("base64"), encodeURIComponent(KEY)])
      expect(text).not.toContain(form); // …never the key
    expect(text).not.toContain("abcdefghijklmnopqrstuvwxyz012345");
  });

  it("caps a content attribute (a gate that answers a megabyte)", async () => {
    const { tracer, exporter, provider } = memoryTracer();
    const spans = await castSpans(tracer, { name: "lib", content: true, redact: (t) => t });
    const big = "y".repeat(1 << 20);
    const cantrip = new Cantrip({
      llm: new ScriptedLLM({
        responses: [
          { content: big, tool_calls: [{ gate: "echo", args: { text: big } }] },
          { tool_calls: [{ gate: "done", args: { answer: "ok" } }] },
        ],
      }),
      identity: createIdentity({ systemPrompt: "Be brief." }),
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
    });
    await cantrip.cast("Echo.", { onEvent: spans.listener });
    spans.end();
    await provider.forceFlush();
    const longest = Math.max(...attributeText(exporter).map((t) => t.length));
    expect(longest).toBeGreaterThan(1000);
    expect(longest).toBeLessThanOrEqual(MAX_CONTENT_CHARS + 64);
  });
});

const turn = (id: string, over: Record<string, unknown> = {}): LoomRecord =>
  ({
    type: "turn",
    id,
    parent_id: null,
    cantrip_id: "c",
    entity_id: "ent_a",
    role: "turn",
    sequence: 1,
    utterance: "u",
    observation: "o",
    gate_calls: [],
    metadata: {
      timestamp: "2026-01-01T00:00:00Z",
      duration_ms: 5,
      tokens_prompt: 1,
      tokens_completion: 1,
      tokens_cached: 0,
    },
    reward: null,
    terminated: false,
    truncated: false,
    reason: null,
    ...over,
  }) as unknown as LoomRecord;

/** A tracer that keeps nothing: counts spans and the longest attribute value. */
function countingTracer() {
  const seen = { spans: 0, longest: 0 };
  const note = (v: unknown) => {
    seen.longest = Math.max(seen.longest, String(v).length);
  };
  const span = {
    setAttribute: (_k: string, v: unknown) => (note(v), span),
    setAttributes: (a: Record<string, unknown>) => (Object.values(a).forEach(note), span),
    setStatus: () => span,
    end: () => undefined,
    spanContext: () => api.INVALID_SPAN_CONTEXT,
    isRecording: () => false,
  };
  const tracer = {
    startSpan: (_n: string, o?: { attributes?: Record<string, unknown> }) => {
      seen.spans++;
      Object.values(o?.attributes ?? {}).forEach(note);
      return span;
    },
  } as unknown as api.Tracer;
  return { tracer, seen };
}

describe("loomSpans on a hostile loom", () => {
  it("wrong types, __proto__ keys and huge strings: spans sent, capped, nothing polluted", () => {
    const { tracer, seen } = countingTracer();
    const records = [
      turn("t1", {
        utterance: "z".repeat(2 << 20),
        gate_calls: [
          null,
          7,
          { gate_name: "echo", arguments: { nested: ["x"] }, result: 42, is_error: "yes" },
          { gate_name: { toString: "no" }, arguments: "a".repeat(1 << 20), result: null },
        ],
      }),
      turn("t2", { entity_id: "ent_b", metadata: null, sequence: "first" }),
      turn("t3", {
        entity_id: "ent_c",
        gate_calls: "not a list",
        metadata: { tokens_prompt: "9" },
      }),
      turn("t4", { entity_id: 12 }),
      JSON.parse(
        `{"type":"turn","id":"t5","entity_id":"__proto__","sequence":1,"gate_calls":[],"metadata":{"__proto__":{"polluted":1},"timestamp":"2026-01-01T00:00:00Z"}}`,
      ) as LoomRecord,
    ];
    const entities = loomSpans(api, tracer, records, {
      name: "x",
      content: true,
      redact: (t) => t,
    });
    expect(entities).toBe(4);
    expect(seen.spans).toBeGreaterThanOrEqual(8);
    expect(seen.longest).toBeLessThanOrEqual(MAX_CONTENT_CHARS + 64);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("one entity of 60,000 turns is sent in linear time, without overflowing the stack", () => {
    const { tracer, seen } = countingTracer();
    const records: LoomRecord[] = [];
    for (let i = 0; i < 60_000; i++)
      records.push(turn(`t${i}`, { sequence: i + 1, parent_id: i === 0 ? null : `t${i - 1}` }));
    const started = process.cpuUsage();
    expect(loomSpans(api, tracer, records, { name: "x", content: false, redact: (t) => t })).toBe(
      1,
    );
    const cpu = process.cpuUsage(started);
    expect(seen.spans).toBe(60_001);
    // CPU time, not wall time (a loaded machine): the quadratic grouping took 19 s here (8.3 s
    // at 40,000), the linear one takes under half a second.
    expect((cpu.user + cpu.system) / 1e6).toBeLessThan(5);
  }, 120_000);

  it("a chain of 30,000 children, each spawned by the one before: every entity sent, no stack overflow, names short", () => {
    const { tracer, seen } = countingTracer();
    const names = new Map<number, string>();
    const named = {
      startSpan: (n: string, o?: api.SpanOptions) => {
        const name = o?.attributes?.["gen_ai.agent.name"];
        if (typeof name === "string") names.set(names.size, name);
        return tracer.startSpan(n, o);
      },
    } as unknown as api.Tracer;
    const depth = 30_000;
    const records: LoomRecord[] = [];
    for (let i = 0; i < depth; i++)
      records.push(
        turn(`t${i}`, {
          entity_id: `ent_${i}`,
          parent_id: i === 0 ? null : `t${i - 1}`,
          gate_calls:
            i === depth - 1
              ? []
              : [{ gate_name: "call_entity", arguments: "{}", result: "ok", is_error: false }],
        }),
      );
    expect(loomSpans(api, named, records, { name: "x", content: false, redact: (t) => t })).toBe(
      depth,
    );
    // Each entity: its agent span, its turn's chat span, its call_entity span (not the last).
    expect(seen.spans).toBe(3 * depth - 1);
    expect(names.get(0)).toBe("x");
    expect(names.get(2)).toBe("x child child");
    expect(names.get(8)).toBe("x child child child child child child child child");
    expect(names.get(9)).toBe("x child×9");
    expect(names.get(depth - 1)).toBe(`x child×${depth - 1}`);
    expect(seen.longest).toBeLessThan(200);
  }, 120_000);
});
