// POST /cast with a body that says nothing to cast: the 400 says what to send, in the spell's
// terms — an intent, or (only for a spell that declares inputs:) its inputs.
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

const spellText = (extra = "") => `name: plain
llm: { provider: scripted, responses: [{ content: ok }] }
identity: { system_prompt: "Answer." }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
${extra}`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function castEmpty(text: string): Promise<{ status: number; message: string }> {
  const loaded = await loadSpellText(text, "plain.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, {});
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const res = await fetch(`${url}/cast`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  const body = (await res.json()) as { error: { message: string } };
  return { status: res.status, message: body.error.message };
}

describe("POST /cast with no intent", () => {
  it("says to send an intent, and nothing of inputs when the spell has none", async () => {
    const { status, message } = await castEmpty(spellText());
    expect(status).toBe(400);
    expect(message).toContain('{"intent": "…"}');
    expect(message).not.toMatch(/inputs|anyOf/);
  });

  it("names the inputs too when the spell declares them", async () => {
    const { status, message } = await castEmpty(
      spellText(
        'inputs: { type: object, properties: { path: { type: string } } }\nintent: "Read {{path}}"\n',
      ),
    );
    expect(status).toBe(400);
    expect(message).toContain('{"intent": "…"}');
    expect(message).toContain('{"inputs": {…}}');
  });
});
