// `spell serve` answers a path it has no route for, or a method a path does not take, in the
// shape of every other error it sends: `{ "error": { "code", "message" } }`, not Fastify's own
// `{ message, error, statusCode }`; a token still comes first (no route is told to a stranger).
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

const spellText = `name: plain
llm: { provider: scripted, responses: [{ content: ok }] }
identity: { system_prompt: "Answer." }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(options: ServeOptions = {}): Promise<string> {
  const loaded = await loadSpellText(spellText, "plain.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, options);
  return app.listen({ port: 0, host: "127.0.0.1" });
}

async function answer(res: Response) {
  const body: unknown = await res.json();
  return { status: res.status, type: res.headers.get("content-type"), body };
}

describe("spell serve: a route it does not have", () => {
  it("an unknown path is a 404 in the project's error shape, naming the method and path", async () => {
    const url = await serve();
    const got = await answer(await fetch(`${url}/nowhere?x=1`));
    expect(got.status).toBe(404);
    expect(got.type).toMatch(/^application\/json/);
    expect(got.body).toEqual({
      error: {
        code: "unknown_route",
        message: "no route GET /nowhere (GET /openapi.json lists the routes)",
      },
    });
  });

  it("a method the path does not take is answered the same way", async () => {
    const url = await serve();
    const got = await answer(await fetch(`${url}/healthz`, { method: "DELETE" }));
    expect(got.status).toBe(404);
    expect(got.body).toEqual({
      error: {
        code: "unknown_route",
        message: "no route DELETE /healthz (GET /openapi.json lists the routes)",
      },
    });
  });

  it("with a token, a request without it is refused before any route is looked for", async () => {
    const url = await serve({ token: "tok-123456789" });
    const got = await answer(await fetch(`${url}/nowhere`));
    expect(got.status).toBe(401);
    expect((got.body as { error: { code: string } }).error.code).toBe("unauthorized");
    const authorized = await fetch(`${url}/nowhere`, {
      headers: { authorization: "Bearer tok-123456789" },
    });
    expect((await answer(authorized)).body).toMatchObject({ error: { code: "unknown_route" } });
  });
});
