// `spell eval --otel`: the built CLI against the loopback OpenAI-wire server (its own process),
// spans sent to a loopback OTLP/HTTP receiver. One `invoke_workflow` span for the run; under it
// each cast's `invoke_agent` span (its case, repeat and verdict as attributes), the cast's chat
// and execute_tool spans, its child nested under the call_entity span, and the judge's query as a
// `chat` span under the cast it judged.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CHILD,
  DELEGATING as PARENT,
  envFor,
  evalFolder,
  runCli,
  startWireServer,
  type WireServer,
} from "../eval/support/harness.js";
import {
  attr,
  otlpReceiver,
  type OtlpHistogramPoint,
  type OtlpSpan,
  type Receiver,
} from "./receiver.js";

const EVAL = `kind: eval
name: traced
spells: [./adder.yaml]
cases:
  - { name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }
  - name: B
    intent: "What is 2 + 2?"
    expect: [{ judge: { llm: openai/judge-model, rubric: "Is {{result}} right?" } }]
repeat: 2
concurrency: 2
`;

let server: WireServer;
let receiver: Receiver;
beforeEach(async () => {
  [server, receiver] = await Promise.all([startWireServer({ delegate: true }), otlpReceiver()]);
});
afterEach(async () => {
  await Promise.all([server.close(), receiver.close()]);
});

async function evalRun(args: string[], extraEnv: Record<string, string> = {}) {
  const dir = evalFolder(EVAL);
  writeFileSync(join(dir, "adder.yaml"), PARENT);
  writeFileSync(join(dir, "child.yaml"), CHILD);
  const env = {
    ...envFor(server),
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: "sk-test-judge-0000",
    ...extraEnv,
  };
  const r = await runCli(["eval", "eval.yaml", "--out", "out", ...args], env, dir);
  expect(r.stderr).not.toContain("warning: --otel");
  expect(r.code, r.stderr).toBe(0);
  return receiver.spans();
}

const named = (spans: OtlpSpan[], name: string) => spans.filter((s) => s.name === name);

describe("spell eval --otel", { timeout: 120_000 }, () => {
  it("a workflow span for the run; each cast an invoke_agent span under it with its verdict; children and judges nested", async () => {
    const spans = await evalRun(["--otel", receiver.url]);
    const runs = named(spans, "invoke_workflow traced");
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.parentSpanId ?? "").toBe("");
    expect(attr(run, "gen_ai.operation.name")).toBe("invoke_workflow");
    expect(attr(run, "gen_ai.workflow.name")).toBe("traced");
    expect(attr(run, "spellbook.eval.casts")).toBe(4);
    expect(attr(run, "spellbook.eval.passed")).toBe(4);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([run.traceId]));

    const casts = named(spans, "invoke_agent adder");
    expect(casts).toHaveLength(4);
    for (const cast of casts) {
      expect(cast.parentSpanId).toBe(run.spanId);
      expect(attr(cast, "gen_ai.request.model")).toBe("wire-model");
      expect(attr(cast, "gen_ai.evaluation.score.label")).toBe("pass");
      expect(attr(cast, "gen_ai.evaluation.score.value")).toBe(1);
    }
    expect(
      casts
        .map(
          (c) => String(attr(c, "spellbook.eval.case")) + String(attr(c, "spellbook.eval.repeat")),
        )
        .sort(),
    ).toEqual(["A0", "A1", "B0", "B1"]);

    // Each cast delegates once: its child's agent span under its own call_entity span.
    const delegations = named(spans, "execute_tool call_entity");
    expect(delegations).toHaveLength(4);
    const children = spans.filter((s) => s.name.startsWith("invoke_agent ") && !casts.includes(s));
    expect(children).toHaveLength(4);
    for (const child of children) {
      expect(delegations.map((d) => d.spanId)).toContain(child.parentSpanId);
      expect(attr(child, "gen_ai.request.model")).toBe("child-model");
    }

    // The judge's query: a chat span under the cast it judged (case B's casts only).
    const judges = named(spans, "chat judge-model");
    expect(judges).toHaveLength(2);
    const judged = judges.map((j) => casts.find((c) => c.spanId === j.parentSpanId));
    expect(judged.map((c) => c && attr(c, "spellbook.eval.case"))).toEqual(["B", "B"]);
    expect(attr(judges[0]!, "gen_ai.operation.name")).toBe("chat");
    expect(attr(judges[0]!, "gen_ai.usage.input_tokens")).toBe(10);

    // The GenAI client metrics count every LLM call the spans show: the casts', the children's
    // and the judge's (its tokens the wire server's 10 + 5 a query).
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    const metrics = receiver.metrics();
    const points = (name: string) =>
      metrics.filter((m) => m.name === name).flatMap((m) => m.histogram?.dataPoints ?? []);
    const count = (ps: OtlpHistogramPoint[]) => ps.reduce((n, p) => n + Number(p.count), 0);
    const judgeCalls = points("gen_ai.client.operation.duration").filter(
      (p) => attr(p, "gen_ai.request.model") === "judge-model",
    );
    expect(count(judgeCalls)).toBe(2);
    expect(count(points("gen_ai.client.operation.duration"))).toBe(chats.length);
    const judgeTokens = points("gen_ai.client.token.usage").filter(
      (p) => attr(p, "gen_ai.request.model") === "judge-model",
    );
    expect(judgeTokens.map((p) => [attr(p, "gen_ai.token.type"), p.sum]).sort()).toEqual([
      ["input", 20],
      ["output", 10],
    ]);

    // No content without --otel-content.
    const all = receiver.bodies.join("\n");
    for (const word of ["What is 1 + 2?", "Is 4 right?", "gen_ai.evaluation.explanation"])
      expect(all).not.toContain(word);
    expect(all).not.toContain("sk-test-eval-key-000000");
    expect(receiver.metricBodies.join("\n")).not.toContain("sk-test-eval-key-000000");
  });

  it("reads OTEL_EXPORTER_OTLP_ENDPOINT like the other commands", async () => {
    const spans = await evalRun([], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(named(spans, "invoke_workflow traced")).toHaveLength(1);
    expect(named(spans, "invoke_agent adder")).toHaveLength(4);
  });
});
