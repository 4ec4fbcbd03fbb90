/**
 * A quote of a model's text cut short must not keep the start of a secret: the loom redacts at
 * rest, but a redactor never knows a secret's first characters alone. A tool call whose
 * arguments are not JSON, the secret written just before where a quote would be cut.
 * Fake key, loopback server only.
 */
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";

const KEY = "fake-secret-value-0123456789abcdefghij";
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** An OpenAI-shaped server: the first reply calls `echo` with `args`, the second calls done. */
async function model(args: string): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const call =
        n++ === 0
          ? { id: "c1", type: "function", function: { name: "echo", arguments: args } }
          : {
              id: "c2",
              type: "function",
              function: { name: "done", arguments: '{"answer":"ok"}' },
            };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          model: "m",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: { role: "assistant", content: null, tool_calls: [call] },
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

describe("a quote of a model's text, cut short", () => {
  it("arguments that are not JSON: the observation keeps no start of a secret", async () => {
    const args = `{"text": "${"x".repeat(180)} ${KEY}`; // never closed
    const dir = mkdtempSync(join(tmpdir(), "cut-quotes-"));
    const spell = join(dir, "spell.yaml");
    writeFileSync(
      spell,
      `llm: { provider: openai, base_url: "${await model(args)}", api_key: "${KEY}", model: m }\n` +
        "identity: {}\ncircle:\n  gates: [done, echo]\n  wards: [{ max_turns: 3 }]\n",
    );
    const loaded = await loadSpell(spell, { loomPath: join(dir, "loom.jsonl") });
    const result = await loaded.cantrip!.cast("go");
    expect(result.status).toBe("terminated");
    const loom = readFileSync(join(dir, "loom.jsonl"), "utf8");
    expect(loom).toContain("arguments are not valid JSON");
    expect(loom).not.toContain(KEY.slice(0, 8));
  });
});
