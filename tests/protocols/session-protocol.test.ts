import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { methods } from "@agentclientprotocol/sdk";
import { createAcpAgent, type AcpAgent } from "../../src/protocols/acp/agent.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { recordSession, sessionEntity } from "../../src/loom/entities/index.js";
import { loadSpell } from "../../src/spell/index.js";
import { initialize, testClient, type TestClient } from "../support/acp.js";

/**
 * A protocol session is recorded beside the loom with its protocol (entity-keeper.ts,
 * `sessionEntity`): a session opens only under the protocol that recorded it — an HTTP session
 * is no ACP session and an ACP session no HTTP one. Today the id shapes differ too (HTTP:
 * `sess_…`, ACP: the entity id), so the rule is pinned here with records of the other shape.
 */
function spellAndLoom() {
  const dir = mkdtempSync(join(tmpdir(), "session-protocol-"));
  const file = join(dir, "s.yaml");
  writeFileSync(
    file,
    `name: helper
llm: { provider: scripted, responses: [{ content: "one" }, { content: "two" }, { content: "three" }] }
identity: { system_prompt: "Help." }
circle:
  gates: [done]
  wards: [{ max_turns: 2 }]
`,
  );
  return { file, loom: join(dir, "loom.jsonl") };
}

let agent: AcpAgent | undefined;
let client: TestClient | undefined;
afterEach(() => {
  client?.connection.close();
  agent?.close();
  agent = client = undefined;
});

async function acpOn(file: string, loom: string) {
  const loaded = await loadSpell(file, { loomPath: loom });
  agent = await createAcpAgent({
    name: loaded.name,
    cantripFor: () => Promise.resolve(loaded.cantrip!),
    redactor: loaded.redactor,
  });
  client = testClient(agent.app);
  await initialize(client);
  const c = client;
  const load = (sessionId: string) =>
    c.agent.request(methods.agent.session.load, { sessionId, cwd: tmpdir(), mcpServers: [] }).then(
      () => "loaded",
      (e: { code: number }) => e.code,
    );
  const done = () => {
    c.connection.close();
    agent!.close();
    agent = client = undefined;
    loaded.cantrip!.loom.close();
  };
  return { client: c, load, done };
}

describe("a session opens only under the protocol that recorded it", () => {
  it("the record itself: sessionEntity answers for its own protocol only", async () => {
    const { loom } = spellAndLoom();
    writeFileSync(loom, "");
    await recordSession(loom, "http", "sess_A", "ent_a");
    await recordSession(loom, "acp", "ent_b", "ent_b");
    expect(await sessionEntity(loom, "http", "sess_A")).toBe("ent_a");
    expect(await sessionEntity(loom, "acp", "sess_A")).toBeUndefined();
    expect(await sessionEntity(loom, "acp", "ent_b")).toBe("ent_b");
    expect(await sessionEntity(loom, "http", "ent_b")).toBeUndefined();
  });

  it("ACP session/load refuses an HTTP session, even one recorded under its entity's id", async () => {
    const { file, loom } = spellAndLoom();
    const http = await loadSpell(file, { loomPath: loom });
    const app = await createHttpServer(http);
    const id = (await app.inject({ method: "POST", url: "/sessions" })).json<{ id: string }>().id;
    const sent = await app.inject({
      method: "POST",
      url: `/sessions/${id}/send`,
      payload: { intent: "hello" },
    });
    expect(sent.statusCode).toBe(200);
    const turns = (await app.inject({ method: "GET", url: `/sessions/${id}/loom` })).body;
    const entityId = /"entity_id":"([^"]+)"/.exec(turns)![1]!;
    await app.close();
    http.cantrip!.loom.close();
    // The shape ACP loads by: the entity's id, recorded as an HTTP session.
    await recordSession(loom, "http", entityId, entityId);

    const acp = await acpOn(file, loom);
    expect(await acp.load(id)).toBe(-32002); // resource not found
    expect(await acp.load(entityId)).toBe(-32002);
    acp.done();
    // The same entity recorded as an ACP session loads: what refused it was the protocol.
    await recordSession(loom, "acp", entityId, entityId);
    const again = await acpOn(file, loom);
    expect(await again.load(entityId)).toBe("loaded");
    again.done();
  });

  it("HTTP refuses an ACP session, even one recorded under a `sess_…` id", async () => {
    const { file, loom } = spellAndLoom();
    const acp = await acpOn(file, loom);
    const { sessionId } = await acp.client.agent.request(methods.agent.session.new, {
      cwd: tmpdir(),
      mcpServers: [],
    });
    await acp.client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    acp.done();
    // The shape HTTP opens: a `sess_…` id, recorded as an ACP session of that entity.
    await recordSession(loom, "acp", "sess_forgedAcpSession", sessionId);

    const http = await loadSpell(file, { loomPath: loom });
    const app = await createHttpServer(http);
    for (const id of ["sess_forgedAcpSession", sessionId]) {
      const read = await app.inject({ method: "GET", url: `/sessions/${id}/loom` });
      expect(read.statusCode, id).toBe(404);
      const send = await app.inject({
        method: "POST",
        url: `/sessions/${id}/send`,
        payload: { intent: "again" },
      });
      expect(send.statusCode, id).toBe(404);
    }
    // The same entity recorded as an HTTP session opens: what refused it was the protocol.
    await recordSession(loom, "http", "sess_recordedAsHttp", sessionId);
    const read = await app.inject({ method: "GET", url: "/sessions/sess_recordedAsHttp/loom" });
    expect(read.statusCode).toBe(200);
    expect(read.body).toContain(sessionId);
    await app.close();
    http.cantrip!.loom.close();
  });
});
