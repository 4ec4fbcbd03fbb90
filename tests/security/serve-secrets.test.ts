import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { doneReplyLeaking, withProvider, type LoopbackReply } from "../support/providers.js";

// issue 21: `spell serve` with a real `${env:…}` secret, in every form a client can read.
const SECRET = "vault-pass-8c1f2e9d47";
const doneWith = (answer: string): LoopbackReply => doneReplyLeaking(answer, SECRET);

/** A chat-completion SSE stream whose text arrives in `size`-character deltas, then stops. */
function textStream(text: string, size: number): LoopbackReply {
  const chunk = (delta: unknown, finish: string | null = null, usage: unknown = null) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "m", choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`;
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return {
    sse:
      chunk({ role: "assistant", content: "" }) +
      pieces.map((p) => chunk({ content: p })).join("") +
      chunk({}, "stop") +
      chunk({}, null, { prompt_tokens: 5, completion_tokens: 5 }) +
      "data: [DONE]\n\n",
  };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(base: string) {
  const loaded = await loadSpellText(
    `name: vault
llm: { provider: openai, model: gpt-4.1, base_url: '\${env:BASE}', api_key: sk-test-not-a-key }
identity: { system_prompt: 'The vault password is \${env:MY_SECRET}.' }
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
    "vault.yaml",
    { env: { MY_SECRET: SECRET, BASE: `${base}/v1` }, loomPath: "memory" },
  );
  app = await createHttpServer(loaded);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const cast = (accept: string) =>
    fetch(`${url}/cast`, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify({ intent: "open the vault" }),
    });
  return { cast };
}

describe("spell serve never sends a secret (PROD-8)", () => {
  for (const size of [1, 3, 4])
    it(`SSE: a secret streamed in ${size}-character deltas is not in the joined events`, async () => {
      const text = `The password is ${SECRET} as you said. Opening it now.`;
      await withProvider([textStream(text, size)], async (provider) => {
        const { cast } = await serve(provider.url);
        const res = await cast("text/event-stream");
        const sse = await res.text();
        // The secret really went out to the provider and came back in pieces.
        expect(JSON.stringify(provider.requests[0]!.body)).toContain(SECRET);
        expect(sse).toContain("event: text");
        expect(sse).toContain("event: result");
        const joined = sse
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => JSON.parse(l.slice(6)) as { type?: string; text?: string })
          .filter((e) => e.type === "text")
          .map((e) => e.text)
          .join("");
        expect(joined).toBe("The password is [REDACTED] as you said. Opening it now.");
        expect(sse).not.toContain(SECRET);
        expect(sse.replace(/\s/g, "")).not.toContain(SECRET);
      });
    });

  it("the JSON result of POST /cast", async () => {
    await withProvider([doneWith(`opened with ${SECRET}`)], async (provider) => {
      const { cast } = await serve(provider.url);
      const res = await cast("application/json");
      const body = await res.text();
      expect(res.status).toBe(200);
      expect(JSON.stringify(provider.requests[0]!.body)).toContain(SECRET);
      expect(JSON.parse(body)).toMatchObject({ result: "opened with [REDACTED]" });
      expect(body).not.toContain(SECRET);
    });
  });

  // A key known by its shape alone (no spell names it), after a newline or a tab: redacting only
  // the answer's JSON text missed it there, where `\b` sees the escape's letter (`\nsk-…`).
  const SHAPED = ["sk-abcdefghijklmnop1234", "ghp_abcdefghijklmnopqrstu", "xoxb-1234567890ab"];
  const shapedAnswer = `line\n${SHAPED[0]}\t${SHAPED[1]}\r\n${SHAPED[2]} and\tBearer abcdefghijklmnop1234`;
  for (const accept of ["application/json", "text/event-stream"])
    it(`a shaped key after a newline or a tab in the answer (${accept})`, async () => {
      await withProvider([doneWith(shapedAnswer)], async (provider) => {
        const { cast } = await serve(provider.url);
        const body = await (await cast(accept)).text();
        expect(body).toContain("[REDACTED]");
        for (const key of [...SHAPED, "abcdefghijklmnop1234"]) expect(body).not.toContain(key);
      });
    });
});
