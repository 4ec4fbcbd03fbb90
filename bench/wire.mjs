// The eval and scale benches' model: the loopback OpenAI-wire server of the eval tests
// (tests/eval/support/wire-server.mjs, its own process) answering after 50 ms, and a spell of
// 3 turns a cast (two echo calls, then the answer) against it.
import { spawn } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/**
 * Starts the server (`config`: wire-server.mjs's; default 50 ms a reply, 3 turns a cast);
 * resolves to { child, port } once it printed its port.
 */
export async function startWire(config = { delayMs: 50, turns: 3 }) {
  const child = spawn(
    process.execPath,
    [join(root, "tests/eval/support/wire-server.mjs"), JSON.stringify(config)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise((resolve) =>
    child.stdout.once("data", (d) => resolve(Number(/PORT (\d+)/.exec(String(d))[1]))),
  );
  return { child, port };
}

/** The 3-turn spell whose model is the server on `port`. */
export const threeTurnSpell = (port) => `name: three-turns
llm: { provider: openai, model: wire-model, base_url: "http://127.0.0.1:${port}/v1", api_key: k }
identity: { system_prompt: Answer with the number. }
circle:
  gates: [done, { name: echo, behavior: { result: "hi" } }]
  wards: [{ max_turns: 5 }]
`;
