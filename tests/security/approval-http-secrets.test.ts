/**
 * Issue 38: a `${env:…}` secret in a gate call's arguments never leaves `spell serve` in the
 * approval question: not in the SSE `approval` event, not in GET /sessions/ID/approvals, in no
 * encoding (raw, JSON-escaped). A real server on loopback, read by fetch; the secret is the
 * test's own.
 */
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

const SECRET = "vault-pass-7d3a9c1e55";

const SPELL = `name: asker
llm:
  provider: scripted
  cycle: true
  responses:
    - tool_calls: [{ gate: echo, args: { text: "open with \${env:MY_SECRET}", path: "\${env:MY_SECRET}/x" } }]
    - tool_calls: [{ gate: done, args: { answer: over } }]
identity: {}
circle:
  gates: [done, echo]
  wards: [{ max_turns: 4 }]
  approve: [{ gate: echo }]
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Reads an SSE response; `onEvent` sees each event as it arrives. Resolves with the whole text. */
async function readEvents(
  res: Response,
  onEvent: (type: string, data: Record<string, unknown>) => Promise<void>,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let seen = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const blocks = text.split("\n\n");
    for (; seen < blocks.length - 1; seen++) {
      const m = /^event: (\S+)\ndata: (.*)$/s.exec(blocks[seen]!);
      if (m) await onEvent(m[1]!, JSON.parse(m[2]!) as Record<string, unknown>);
    }
  }
  return text;
}

describe("spell serve's approval question never carries a secret", () => {
  it("the SSE approval event and the open-approvals list say [REDACTED]", async () => {
    const loaded = await loadSpellText(SPELL, "asker.yaml", {
      env: { MY_SECRET: SECRET },
      loomPath: "memory",
    });
    app = await createHttpServer(loaded);
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(url + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const id = ((await (await post("/sessions", {})).json()) as { id: string }).id;
    const res = await post(
      `/sessions/${id}/send`,
      { intent: "go" },
      { accept: "text/event-stream" },
    );
    const questions: Record<string, unknown>[] = [];
    let listed = "";
    const stream = await readEvents(res, async (type, data) => {
      if (type !== "approval") return;
      questions.push(data);
      listed = await (await fetch(`${url}/sessions/${id}/approvals`)).text();
      await post(`/sessions/${id}/approvals/${String(data["id"])}`, { allow: false });
    });
    expect(questions).toHaveLength(1);
    const args = JSON.parse(questions[0]!["arguments"] as string) as Record<string, string>;
    expect(args).toEqual({ text: "open with [REDACTED]", path: "[REDACTED]/x" });
    expect(listed).toContain("[REDACTED]");
    for (const text of [stream, listed]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(JSON.stringify(SECRET).slice(1, -1));
    }
    const turn = loaded.cantrip!.loom.turns()[0]!;
    expect(turn.metadata["approvals"]).toMatchObject([{ gate: "echo", allowed: false }]);
  });
});
