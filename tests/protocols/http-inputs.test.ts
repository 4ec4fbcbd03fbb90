import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

// Issue 26: POST /cast {"inputs": {…}} is checked before any cast; the typed value comes back.
const SPELL = `name: typed
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: { words: 7 } } }] }] }
identity: {}
inputs:
  type: object
  properties: { path: { type: string }, words: { type: integer, minimum: 10, default: 100 } }
  required: [path]
intent: "Summarize {{path}} in {{words}} words."
output_schema: { type: object, properties: { words: { type: integer } }, required: [words] }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve() {
  const loaded = await loadSpellText(SPELL, "typed.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const post = (body: unknown) =>
    fetch(`${url}/cast`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { post, loaded };
}

describe("POST /cast with inputs (issue 26)", () => {
  it("fills the intent from the inputs and returns the typed value, not a string of it", async () => {
    const { post, loaded } = await serve();
    const res = await post({ inputs: { path: "README.md" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: unknown; entity_id: string };
    expect(body.result).toEqual({ words: 7 });
    const first = loaded.cantrip!.loom.turns().find((t) => t.entity_id === body.entity_id);
    expect(first?.metadata?.["intent"]).toBe("Summarize README.md in 100 words.");
  });

  it("a bad input is 400 bad_input naming the field; nothing is cast", async () => {
    const { post, loaded } = await serve();
    const res = await post({ inputs: { path: "a", words: 3 } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "bad_input", message: "input words: must be >= 10" },
    });
    const missing = await post({ inputs: {} });
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      "input path: is required",
    );
    expect(loaded.cantrip!.loom.size).toBe(0);
  });
});
