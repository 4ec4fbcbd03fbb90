// Issue 45: a body that is not JSON, sent to /a2a, gets JSON-RPC's parse error (-32700, id null),
// as the A2A TCK checks; /cast keeps its own error shape for the same body.
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe("/a2a with malformed JSON", () => {
  it("answers JSON-RPC -32700 with id null; /cast answers its own 400", async () => {
    const loaded = await loadSpellText(
      `name: plain
llm: { provider: scripted, responses: [{ content: ok }] }
identity: { system_prompt: Answer. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`,
      "plain.yaml",
      { loomPath: "memory" },
    );
    app = await createHttpServer(loaded, {});
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const post = (path: string, body: string) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    for (const body of ['{"jsonrpc": "2.0", "method": "message/send", ', "not json"]) {
      const res = await post("/a2a", body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as {
        jsonrpc: string;
        id: unknown;
        error: { code: number };
      };
      expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    }
    const cast = await post("/cast", "not json");
    expect(cast.status).toBe(400);
    expect(((await cast.json()) as { error: { code: string } }).error.code).toMatch(/^FST_ERR_CTP/);
  });
});
