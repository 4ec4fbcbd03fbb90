/**
 * Issue 25 over `spell serve`: a session's approval question is an `approval` event on the SSE
 * stream of its send, answered by POST /sessions/ID/approvals/APPROVAL_ID; a client that never
 * answers meets the timeout (denied); another session's approval id is refused. A real server
 * on loopback, read by fetch.
 */
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

const SPELL = (timeout: number) => `name: asker
llm:
  provider: scripted
  cycle: true
  responses:
    - tool_calls: [{ gate: echo, args: { text: "ship it" } }]
    - tool_calls: [{ gate: done, args: { answer: over } }]
identity: {}
circle:
  gates: [done, echo]
  wards: [{ max_turns: 4 }]
  approve: [{ gate: echo }]
  approval_timeout_ms: ${timeout}
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(timeout: number) {
  const loaded = await loadSpellText(SPELL(timeout), "asker.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(url + path, {
      method: "POST",
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const session = async () => ((await (await post("/sessions")).json()) as { id: string }).id;
  return { url, post, session, loaded };
}

/** Reads an SSE response; `onEvent` sees each event as it arrives. Resolves with the whole text. */
async function readEvents(
  res: Response,
  onEvent: (type: string, data: Record<string, unknown>) => void | Promise<void>,
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

describe("approvals over spell serve", () => {
  it("an approval event on the session's stream, answered allow: the gate runs", async () => {
    const { post, session, loaded } = await serve(60_000);
    const id = await session();
    const other = await session();
    const res = await post(
      `/sessions/${id}/send`,
      { intent: "go" },
      { accept: "text/event-stream" },
    );
    const statuses: number[] = [];
    const text = await readEvents(res, async (type, data) => {
      if (type !== "approval") return;
      expect(data).toMatchObject({ gate: "echo", rule: "gate echo" });
      expect(JSON.parse(data["arguments"] as string)).toEqual({ text: "ship it" });
      // Another session's id for it is refused, and does not answer it.
      statuses.push(
        (await post(`/sessions/${other}/approvals/${String(data["id"])}`, { allow: false })).status,
      );
      statuses.push(
        (await post(`/sessions/${id}/approvals/${String(data["id"])}`, { allow: true })).status,
      );
    });
    expect(statuses).toEqual([404, 204]);
    expect(text).toMatch(/event: result\ndata: .*"result":"over"/);
    const turn = loaded.cantrip!.loom.turns()[0]!;
    expect(turn.gate_calls[0]).toMatchObject({
      gate_name: "echo",
      is_error: false,
      result: "ship it",
    });
    expect(turn.metadata["approvals"]).toMatchObject([{ gate: "echo", allowed: true, by: "http" }]);
  });

  it("a client that never answers: the question times out and the call is denied", async () => {
    const { post, session, loaded, url } = await serve(300);
    const id = await session();
    const res = await post(
      `/sessions/${id}/send`,
      { intent: "go" },
      { accept: "text/event-stream" },
    );
    let open: unknown[] = [];
    await readEvents(res, async (type) => {
      if (type === "approval")
        open = (
          (await (await fetch(`${url}/sessions/${id}/approvals`)).json()) as {
            approvals: unknown[];
          }
        ).approvals;
    });
    expect(open).toHaveLength(1);
    const turn = loaded.cantrip!.loom.turns()[0]!;
    expect(turn.gate_calls[0]!.result).toMatch(/echo was not run: approval denied \(timed out/);
    expect(turn.metadata["approvals"]).toMatchObject([{ allowed: false, by: "timeout" }]);
    const after = (await (await fetch(`${url}/sessions/${id}/approvals`)).json()) as {
      approvals: unknown[];
    };
    expect(after.approvals).toEqual([]);
  });

  it("a malformed answer denies the call (400) and the gate never runs", async () => {
    const { post, session, loaded } = await serve(60_000);
    const id = await session();
    const res = await post(
      `/sessions/${id}/send`,
      { intent: "go" },
      { accept: "text/event-stream" },
    );
    const statuses: number[] = [];
    await readEvents(res, async (type, data) => {
      if (type === "approval")
        statuses.push(
          (await post(`/sessions/${id}/approvals/${String(data["id"])}`, { allow: "yes" })).status,
        );
    });
    expect(statuses).toEqual([400]);
    const turn = loaded.cantrip!.loom.turns()[0]!;
    expect(turn.gate_calls[0]!.result).toMatch(/approval denied \(malformed answer/);
  });

  it("the OpenAPI document describes the approval routes", async () => {
    const { url } = await serve(1000);
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/sessions/{id}/approvals", "/sessions/{id}/approvals/{approval}"]),
    );
  });
});
