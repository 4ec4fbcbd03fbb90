/**
 * The `spell run --repeat` scene (tests/cli/run-repeat.test.ts, tests/queue/queue-run-repeat.test.ts):
 * an "adder" spell whose model is `${env:R_BASE}`, and a loopback OpenAI-style server where odd
 * requests answer by calling done and even ones with text, so exactly half the casts end by done
 * whatever order they run in.
 */
import { Loopback } from "./loopback-http.js";

export const ADDER_SPELL = `name: adder
llm: { provider: openai, model: wire-model, base_url: "\${env:R_BASE}", api_key: "\${env:R_KEY}" }
identity: { system_prompt: Add. }
intent: What is 1 + 2?
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

const reply = (message: Record<string, unknown>) => ({
  id: "c",
  object: "chat.completion",
  model: "wire-model",
  choices: [
    { index: 0, finish_reason: "stop", message: { role: "assistant", content: null, ...message } },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

/** The alternating server, not yet started (`start()` in beforeAll, `stop()` in afterAll). */
export function alternatingWire(): Loopback {
  const wire = new Loopback();
  let n = 0;
  wire.routes.set("/v1/chat/completions", (_req, res) => {
    const done = ++n % 2 === 1;
    const call = {
      id: `call_${n}`,
      type: "function",
      function: { name: "done", arguments: '{"answer":"3"}' },
    };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(reply(done ? { tool_calls: [call] } : { content: "3" })));
  });
  return wire;
}
