// Live spans name what really answered: a child on another model than its parent is reported with
// its own model (its own llm: block), and every chat span carries the finish reason the provider
// reported (the loopback OpenAI-wire server says "tool_calls" / "stop"), not one guessed from the
// turn's gate calls.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { envFor, startWireServer, type WireServer } from "../eval/support/harness.js";
import { io } from "../support/io.js";
import { attr, otlpReceiver, type OtlpSpan } from "./receiver.js";

const llm = (model: string) =>
  `llm: { provider: openai, model: ${model}, base_url: "\${env:EVAL_BASE}", api_key: "\${env:EVAL_KEY}" }`;
const dir = mkdtempSync(join(tmpdir(), "otel-child-model-"));
writeFileSync(
  join(dir, "child.yaml"),
  `${llm("child-model")}\nidentity: { system_prompt: Answer with the number only. }\ncircle: { gates: [done], wards: [{ max_turns: 2 }] }\n`,
);
const spell = join(dir, "parent.yaml");
writeFileSync(
  spell,
  `name: parent
${llm("wire-model")}
identity: { system_prompt: Delegate. }
circle:
  gates: [done, { call_entity: { spell: ./child.yaml } }]
  wards: [{ max_turns: 3 }]
intent: What is 1 + 2?
`,
);

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer({ delegate: true });
});
afterAll(() => server.close());

const startOf = (s: OtlpSpan) => BigInt(s.startTimeUnixNano);
const byStart = (a: OtlpSpan, b: OtlpSpan) => (startOf(a) < startOf(b) ? -1 : 1);

describe("spell run --otel: a child's own model and the provider's finish reason", () => {
  it("the child's spans name its model, not its parent's; chat spans carry the provider's finish reason", async () => {
    const receiver = await otlpReceiver();
    try {
      const o = io();
      o.env = envFor(server);
      const code = await runCommand(spell, { loom: "memory", quiet: true, otel: receiver.url }, o);
      expect(o.err).not.toContain("warning: --otel");
      expect(code, o.err).toBe(EXIT.ok);
      const spans = receiver.spans();
      const root = spans.find((s) => s.name === "invoke_agent parent")!;
      const child = spans.find((s) => s.name.startsWith("invoke_agent ") && s !== root)!;
      expect(attr(root, "gen_ai.request.model")).toBe("wire-model");
      expect(attr(child, "gen_ai.request.model")).toBe("child-model");
      expect(attr(child, "gen_ai.provider.name")).toBe("openai");

      const chatsOf = (agent: OtlpSpan) =>
        spans.filter((s) => s.name.startsWith("chat ") && s.parentSpanId === agent.spanId);
      const childChats = chatsOf(child);
      expect(childChats.map((s) => s.name)).toEqual(["chat child-model"]);
      expect(attr(childChats[0]!, "gen_ai.request.model")).toBe("child-model");
      expect(attr(childChats[0]!, "gen_ai.response.finish_reasons")).toEqual(["stop"]);

      const parentChats = chatsOf(root).sort(byStart);
      expect(parentChats.map((s) => s.name)).toEqual(["chat wire-model", "chat wire-model"]);
      // The provider said "tool_calls" (OpenAI's word); a guess from the gate calls says "tool_call".
      expect(parentChats.map((s) => attr(s, "gen_ai.response.finish_reasons"))).toEqual([
        ["tool_calls"],
        ["stop"],
      ]);

      // Issue 45: the reply's own id and model, the server asked, and the tool call's id.
      const port = Number(new URL(server.url).port);
      for (const chat of [...parentChats, ...childChats]) {
        expect(attr(chat, "gen_ai.response.model")).toBe("wire-model"); // what the server says
        expect(String(attr(chat, "gen_ai.response.id"))).toMatch(/^chatcmpl-\d+$/);
        expect(attr(chat, "server.address")).toBe("127.0.0.1");
        expect(attr(chat, "server.port")).toBe(port);
      }
      const delegated = spans.find((s) => s.name === "execute_tool call_entity")!;
      expect(String(attr(delegated, "gen_ai.tool.call.id"))).toMatch(/^call_\d+$/);
    } finally {
      await receiver.close();
    }
  });
});
