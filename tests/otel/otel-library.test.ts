// `spellbook/otel` as a library user meets it: the built package imported by name, a tracer of
// the user's own (an in-memory exporter, no collector), a cast's onEvent turned into GenAI
// spans — `invoke_agent`, `chat {model}`, `execute_tool {gate}` — nested as the cast ran.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { needs, notBuilt } from "../support/needs.js";
import * as otel from "../../src/otel/index.js";

const PROGRAM = `
import { Cantrip, Circle, ScriptedLLM, createIdentity, doneGate, echoGate } from "spellbook";
import { castSpans } from "spellbook/otel";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const spans = await castSpans(provider.getTracer("mine"), { name: "lib-user", model: "scripted/m1" });
const cantrip = new Cantrip({
  llm: new ScriptedLLM({
    responses: [
      { tool_calls: [{ gate: "echo", args: { text: "hi" } }] },
      { tool_calls: [{ gate: "done", args: { answer: "ok" } }] },
    ],
  }),
  identity: createIdentity({ systemPrompt: "Be brief." }),
  circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
});
const result = await cantrip.cast("Say hi.", { onEvent: spans.listener });
spans.end();
await provider.forceFlush();
const got = exporter.getFinishedSpans();
const byId = new Map(got.map((s) => [s.spanContext().spanId, s.name]));
console.log(JSON.stringify({
  status: result.status,
  idle: spans.idle(),
  spans: got.map((s) => ({ name: s.name, parent: byId.get(s.parentSpanContext?.spanId) ?? null,
    agent: s.attributes["gen_ai.agent.name"] ?? null })),
}));
`;

describe("spellbook/otel for a library user", () => {
  needs(notBuilt("dist/otel/index.js")).it(
    "the built package's castSpans turns a cast's events into nested GenAI spans on the user's tracer",
    () => {
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", PROGRAM], {
        encoding: "utf8",
      });
      const { status, idle, spans } = JSON.parse(out) as {
        status: string;
        idle: boolean;
        spans: { name: string; parent: string | null; agent: string | null }[];
      };
      expect(status).toBe("terminated");
      expect(idle).toBe(true);
      const agent = spans.find((s) => s.name === "invoke_agent lib-user");
      expect(agent).toMatchObject({ parent: null, agent: "lib-user" });
      expect(spans.filter((s) => s.name === "chat m1")).toHaveLength(2);
      for (const chat of spans.filter((s) => s.name.startsWith("chat ")))
        expect(chat.parent).toBe("invoke_agent lib-user");
      const tools = spans.filter((s) => s.name.startsWith("execute_tool ")).map((s) => s.name);
      expect(tools).toEqual(expect.arrayContaining(["execute_tool echo", "execute_tool done"]));
    },
  );
});

describe("spellbook/otel's face", () => {
  // The names a library user gets, pinned: a new one is a decision.
  it("exports the span builders and the metrics, nothing of the CLI's SDK setup", () => {
    expect(Object.keys(otel).sort()).toEqual([
      "castSpans",
      "eventSpans",
      "genAiMetrics",
      "loomSpans",
      "modelOf",
    ]);
  });
});
