import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { serveCommand } from "../../src/cli/serve.js";
import { io } from "../support/io.js";
import { attr, otlpReceiver, type Receiver } from "./receiver.js";

const dir = mkdtempSync(join(tmpdir(), "otel-serve-"));
const spell = join(dir, "hello.yaml");
writeFileSync(
  spell,
  `name: server
llm: { provider: scripted, responses: [{ content: hello }, { content: again }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
);

let receiver: Receiver;
beforeEach(async () => {
  receiver = await otlpReceiver();
});
afterEach(() => receiver.close());

/**
 * `spell serve` of the spell with --otel to the receiver: resolves with the address it listens
 * on, `stop()` ends it, `serving` is the command's exit code.
 */
async function serveWithOtel() {
  const o = io();
  let listening!: (address: string) => void;
  const address = new Promise<string>((ok) => (listening = ok));
  const stderr = o.stderr;
  o.stderr = (t) => {
    stderr(t);
    const m = / listening on (\S+)/.exec(t);
    if (m) listening(m[1]!);
  };
  let stop!: () => void;
  const stopped = new Promise<void>((ok) => (stop = ok));
  const serving = serveCommand(spell, { port: 0, loom: "memory", otel: receiver.url }, o, stopped);
  return { base: await address, stop, serving };
}

describe("spell serve --otel", () => {
  it("sends a trace per cast, flushed when the server stops", async () => {
    const { base, stop, serving } = await serveWithOtel();
    for (const intent of ["one", "two"]) {
      const res = await fetch(`${base}/cast`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ intent }),
      });
      expect(res.status).toBe(200);
    }
    stop();
    expect(await serving).toBe(EXIT.ok);
    const agents = receiver.spans().filter((s) => s.name === "invoke_agent server");
    expect(agents).toHaveLength(2);
    expect(new Set(agents.map((s) => s.traceId)).size).toBe(2);
    const chats = receiver.spans().filter((s) => s.name.startsWith("chat "));
    expect(chats.map((c) => agents.some((a) => a.spanId === c.parentSpanId))).toEqual([true, true]);
    // Both casts' LLM calls are in the metrics flushed at the stop, their tokens the spans'.
    const points = (name: string) =>
      receiver
        .metrics()
        .filter((m) => m.name === name)
        .flatMap((m) => m.histogram?.dataPoints ?? []);
    const calls = points("gen_ai.client.operation.duration");
    expect(calls.reduce((n, p) => n + Number(p.count), 0)).toBe(2);
    const output = points("gen_ai.client.token.usage").filter(
      (p) => attr(p, "gen_ai.token.type") === "output",
    );
    expect(output.reduce((n, p) => n + Number(p.count), 0)).toBe(2);
    expect(output.reduce((n, p) => n + (p.sum ?? 0), 0)).toBe(
      chats.reduce((n, c) => n + Number(attr(c, "gen_ai.usage.output_tokens")), 0),
    );
  });

  it("sends the same spans for an A2A task (message/send) as for POST /cast", async () => {
    const { base, stop, serving } = await serveWithOtel();
    const res = await fetch(`${base}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: {
            kind: "message",
            messageId: "m1",
            role: "user",
            parts: [{ kind: "text", text: "one" }],
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain("completed");
    stop();
    expect(await serving).toBe(EXIT.ok);
    const agents = receiver.spans().filter((s) => s.name === "invoke_agent server");
    expect(agents).toHaveLength(1);
    expect(agents[0]!.parentSpanId ?? "").toBe("");
    const chats = receiver.spans().filter((s) => s.name.startsWith("chat "));
    expect(chats).toHaveLength(1);
    expect(chats[0]!.parentSpanId).toBe(agents[0]!.spanId);
  });
});
