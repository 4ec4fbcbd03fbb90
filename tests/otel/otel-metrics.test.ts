// The GenAI client metrics --otel sends beside its spans, received by a real loopback OTLP/HTTP
// collector: gen_ai.client.token.usage (input and output, the sums the cast's usage) and
// gen_ai.client.operation.duration (one per LLM call, error.type when a call got no reply), on
// the convention's bucket boundaries, with no prompt, reply or secret in them.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelMetricsEndpoint } from "../../src/otel/endpoint.js";
import { DURATION_BUCKETS, TOKEN_BUCKETS } from "../../src/otel/metrics.js";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { envFor, startWireServer, type WireServer } from "../eval/support/harness.js";
import { io } from "../support/io.js";
import {
  attr,
  otlpReceiver,
  type OtlpHistogramPoint,
  type OtlpMetric,
  type Receiver,
} from "./receiver.js";

const SECRET = "sk-otel-metrics-planted-7c1e9a";
const dir = mkdtempSync(join(tmpdir(), "otel-metrics-"));
const spell = join(dir, "spell.yaml");
writeFileSync(
  spell,
  `
name: metered
llm:
  provider: scripted
  name: scripted/script-model
  responses:
    - content: "the key is \${env:OTEL_TEST_SECRET}"
      tool_calls: [{ gate: echo, args: { text: "\${env:OTEL_TEST_SECRET}" } }]
      usage: { prompt_tokens: 40, completion_tokens: 10, cached_tokens: 8 }
    - tool_calls: [{ gate: echo, args: { text: again } }]
      usage: { prompt_tokens: 300, completion_tokens: 20 }
    - tool_calls: [{ gate: done, args: { answer: all done } }]
      usage: { prompt_tokens: 5000, completion_tokens: 3 }
identity: { system_prompt: You are metered. }
circle: { gates: [done, echo], wards: [{ max_turns: 5 }] }
intent: Count the tokens.
`,
);
const failing = join(dir, "failing.yaml");
writeFileSync(
  failing,
  `
name: failing
llm:
  provider: scripted
  name: scripted/script-model
  responses:
    - tool_calls: [{ gate: echo, args: { text: one } }]
      usage: { prompt_tokens: 7, completion_tokens: 2 }
    - error: { status: 503, message: "overloaded" }
identity: { system_prompt: You fail. }
circle: { gates: [done, echo], wards: [{ max_turns: 5 }] }
intent: Fail on the second query.
`,
);

let receiver: Receiver;
beforeEach(async () => {
  receiver = await otlpReceiver();
});
afterEach(() => receiver.close());

const metric = (metrics: OtlpMetric[], name: string): OtlpMetric => {
  const found = metrics.filter((m) => m.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
const points = (m: OtlpMetric): OtlpHistogramPoint[] => m.histogram?.dataPoints ?? [];
const ofType = (m: OtlpMetric, type: string): OtlpHistogramPoint => {
  const found = points(m).filter((p) => attr(p, "gen_ai.token.type") === type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const sumOf = (ps: OtlpHistogramPoint[]) => ps.reduce((n, p) => n + Number(p.count), 0);
const bucketTotal = (p: OtlpHistogramPoint) =>
  (p.bucketCounts ?? []).reduce<number>((n, c) => n + Number(c), 0);

describe("spell run --otel: GenAI client metrics", () => {
  it("gen_ai.client.token.usage sums the cast's usage; operation.duration counts its LLM calls", async () => {
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET };
    const code = await runCommand(spell, { loom: "memory", quiet: true, otel: receiver.url }, o);
    expect(o.err).not.toContain("warning: --otel");
    expect(code, o.err).toBe(EXIT.ok);
    const metrics = receiver.metrics();

    const usage = metric(metrics, "gen_ai.client.token.usage");
    expect(usage.unit).toBe("{token}");
    const input = ofType(usage, "input");
    const output = ofType(usage, "output");
    expect(Number(input.count)).toBe(3);
    expect(input.sum).toBe(40 + 300 + 5000);
    expect(Number(output.count)).toBe(3);
    expect(output.sum).toBe(10 + 20 + 3);
    expect(input.explicitBounds).toEqual(TOKEN_BUCKETS);
    // 40 ∈ (16, 64], 300 ∈ (256, 1024], 5000 ∈ (4096, 16384]
    expect(input.bucketCounts?.map(Number)).toEqual([0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
    for (const p of [input, output]) {
      expect(attr(p, "gen_ai.operation.name")).toBe("chat");
      expect(attr(p, "gen_ai.provider.name")).toBe("scripted");
      expect(attr(p, "gen_ai.request.model")).toBe("script-model");
      expect(attr(p, "error.type")).toBeUndefined();
    }

    const duration = metric(metrics, "gen_ai.client.operation.duration");
    expect(duration.unit).toBe("s");
    const calls = points(duration);
    expect(calls).toHaveLength(1);
    const [call] = calls as [OtlpHistogramPoint];
    expect(Number(call.count)).toBe(3);
    expect(bucketTotal(call)).toBe(3);
    expect(call.explicitBounds).toEqual(DURATION_BUCKETS);
    expect(call.sum).toBeGreaterThanOrEqual(0);
    expect(attr(call, "gen_ai.operation.name")).toBe("chat");
    expect(attr(call, "gen_ai.provider.name")).toBe("scripted");
    expect(attr(call, "gen_ai.request.model")).toBe("script-model");
    expect(attr(call, "error.type")).toBeUndefined();

    // Names and numbers only: no prompt, utterance, gate argument or secret.
    const sent = receiver.metricBodies.join("\n");
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain("the key is");
    expect(sent).not.toContain("You are metered");
    expect(sent).not.toContain("Count the tokens");
  });

  it("a query that failed is measured with error.type; the answered one without", async () => {
    const o = io();
    const code = await runCommand(failing, { loom: "memory", quiet: true, otel: receiver.url }, o);
    expect(code).not.toBe(EXIT.ok);
    const metrics = receiver.metrics();
    const duration = metric(metrics, "gen_ai.client.operation.duration");
    const failed = points(duration).filter((p) => attr(p, "error.type") !== undefined);
    const ok = points(duration).filter((p) => attr(p, "error.type") === undefined);
    expect(sumOf(ok)).toBe(1);
    expect(sumOf(failed)).toBe(1);
    expect(attr(failed[0]!, "error.type")).toBe("provider_error");
    expect(attr(failed[0]!, "gen_ai.request.model")).toBe("script-model");
    // The failed query had no tokens: the usage is the answered one's only.
    const usage = metric(metrics, "gen_ai.client.token.usage");
    expect(ofType(usage, "input").sum).toBe(7);
    expect(ofType(usage, "output").sum).toBe(2);
    expect(sumOf(points(usage))).toBe(2);
  });

  it("OTEL_EXPORTER_OTLP_ENDPOINT sends the metrics to /v1/metrics of the same collector", async () => {
    const o = io();
    o.env = { OTEL_TEST_SECRET: SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const code = await runCommand(spell, { loom: "memory", quiet: true }, o);
    expect(code, o.err).toBe(EXIT.ok);
    const usage = metric(receiver.metrics(), "gen_ai.client.token.usage");
    expect(ofType(usage, "input").sum).toBe(5340);
  });
});

describe("spell run --otel: metrics of an LLM behind a server", () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer();
  });
  afterAll(() => server.close());

  it("carry server.address, server.port and the model that answered", async () => {
    const wired = join(dir, "wired.yaml");
    writeFileSync(
      wired,
      `name: wired
llm: { provider: openai, model: asked-model, base_url: "\${env:EVAL_BASE}", api_key: "\${env:EVAL_KEY}" }
identity: { system_prompt: Answer with the number only. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
intent: What is 1 + 2?
`,
    );
    const o = io();
    o.env = envFor(server);
    const code = await runCommand(wired, { loom: "memory", quiet: true, otel: receiver.url }, o);
    expect(code, o.err).toBe(EXIT.ok);
    const metrics = receiver.metrics();
    const duration = metric(metrics, "gen_ai.client.operation.duration");
    const usage = metric(metrics, "gen_ai.client.token.usage");
    for (const p of [...points(duration), ...points(usage)]) {
      expect(attr(p, "gen_ai.provider.name")).toBe("openai");
      expect(attr(p, "gen_ai.request.model")).toBe("asked-model");
      expect(attr(p, "gen_ai.response.model")).toBe("wire-model");
      expect(attr(p, "server.address")).toBe("127.0.0.1");
      expect(attr(p, "server.port")).toBe(server.port);
    }
    // The wire server answers every query with 10 prompt and 5 completion tokens.
    const calls = sumOf(points(duration));
    expect(calls).toBeGreaterThan(0);
    expect(ofType(usage, "input").sum).toBe(10 * calls);
    expect(ofType(usage, "output").sum).toBe(5 * calls);
    // The key given to the LLM is not among them.
    expect(receiver.metricBodies.join("\n")).not.toContain(envFor(server).EVAL_KEY);
  });
});

describe("otelMetricsEndpoint", () => {
  it("follows --otel, else the metrics variable, else the base, else the traces variable", () => {
    const traces = "http://c:4318/v1/traces";
    expect(otelMetricsEndpoint(traces, "http://c:4318", {})).toEqual({
      url: "http://c:4318/v1/metrics",
    });
    const env = { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:9/custom" };
    expect(otelMetricsEndpoint(traces, "http://c:4318", env)).toEqual({
      url: "http://c:4318/v1/metrics",
    });
    expect(otelMetricsEndpoint(traces, undefined, env)).toEqual({ url: "http://m:9/custom" });
    expect(
      otelMetricsEndpoint(traces, undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:1/otlp/" }),
    ).toEqual({ url: "http://b:1/otlp/v1/metrics" });
    expect(otelMetricsEndpoint("http://t:1/spans", undefined, {})).toBeUndefined();
    const bad = otelMetricsEndpoint(traces, undefined, {
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "ftp://x",
    });
    expect(bad && "error" in bad ? bad.error : "").toContain("http:// or https://");
  });
});
