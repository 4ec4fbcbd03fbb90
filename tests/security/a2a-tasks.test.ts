import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";
import { startLoopbackProvider, type LoopbackServer } from "../../src/llm/loopback/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { a2aClient, isTask, sendParams, userText } from "../support/a2a.js";

// Issue 38: the tasks `spell serve` keeps for A2A clients. ListTasks shows a client only its own
// tasks (its context), never another client's; at most --max-concurrent casts run at once (A2A
// and POST /cast share the bound); at most --max-sessions tasks are kept, the oldest ended one
// forgotten first and a running one never.
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const wait = { tool_calls: [{ gate: "wait", args: {} }] };
// The replies come from a loopback OpenAI-compatible server, in the order the requests reach it:
// a served scripted spell starts its script again for each cast (issue 45), and these tests need
// one cast to wait while the next is answered.
const spellText = (base: string) => `name: keeper
llm: { provider: openai, model: wire-model, base_url: "${base}/v1", api_key: loopback-key }
identity: { system_prompt: "Answer." }
circle:
  gates: [done, { name: wait, behavior: { delay_ms: 600000, result: waited } }]
  wards: [{ max_turns: 3 }]
`;

let app: FastifyInstance | undefined;
let provider: LoopbackServer | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  await provider?.close();
  provider = undefined;
});

async function serve(responses: unknown[], options: ServeOptions = {}) {
  provider = await startLoopbackProvider(responses.map((r, i) => wireReplyOf("llm", r, i)));
  const loaded = await loadSpellText(spellText(provider.url), "keeper.yaml", {
    loomPath: "memory",
  });
  app = await createHttpServer(loaded, options);
  return app.listen({ port: 0, host: "127.0.0.1" });
}

const listed = (client: Client, contextId: string) =>
  client.listTasks({
    tenant: "",
    contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: "",
    statusTimestampAfter: undefined,
  });

async function sent(client: Client, text: string): Promise<Task> {
  const r = await client.sendMessage(sendParams(text));
  if (!isTask(r)) throw new Error("expected a task");
  return r;
}

/** A task whose cast waits in a gate: resolves once its working status arrived; `cancel` ends it. */
async function running(client: Client) {
  const stream = client.sendMessageStream(sendParams("wait"));
  const first = await stream.next();
  const task = first.value?.payload?.$case === "task" ? first.value.payload.value : undefined;
  if (!task) throw new Error("expected the task first");
  const second = await stream.next();
  expect(
    second.value?.payload?.$case === "statusUpdate" && second.value.payload.value.status?.state,
  ).toBe(TaskState.TASK_STATE_WORKING);
  return {
    task,
    cancel: async () => {
      await client.cancelTask({ tenant: "", id: task.id, metadata: {} });
      const rest: StreamResponse[] = [];
      for await (const e of { [Symbol.asyncIterator]: () => stream }) rest.push(e);
      const last = rest.at(-1)?.payload;
      expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(
        TaskState.TASK_STATE_CANCELED,
      );
    },
  };
}

describe("A2A ListTasks is scoped to the caller (issue 38)", () => {
  it("two clients: each lists its own context's tasks; a listing naming no context is refused", async () => {
    const url = await serve([done("for a"), done("for b"), done("for a again")]);
    const alice = await a2aClient(url);
    const bob = await a2aClient(url);
    const a1 = await sent(alice, "alice's first");
    const b1 = await sent(bob, "bob's");
    expect(a1.contextId).not.toBe(b1.contextId);
    // Alice goes on in her context: her second task joins it.
    const again = await alice.sendMessage({
      ...sendParams(""),
      message: { ...userText("alice's second"), contextId: a1.contextId },
    });
    const a2 = isTask(again) ? again : undefined;
    expect(a2?.contextId).toBe(a1.contextId);
    const ofAlice = await listed(alice, a1.contextId);
    expect(ofAlice.tasks.map((t) => t.id).sort()).toEqual([a1.id, a2!.id].sort());
    const ofBob = await listed(bob, b1.contextId);
    expect(ofBob.tasks.map((t) => t.id)).toEqual([b1.id]);
    expect(ofBob.totalSize).toBe(1);
    // Without a context: refused, for the SDK's client and on the wire; no task is named.
    await expect(listed(bob, "")).rejects.toThrow(/contextId/);
    const raw = await (
      await fetch(`${url}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ListTasks", params: {} }),
      })
    ).text();
    const answer = JSON.parse(raw) as { id: number; error?: { message?: string } };
    expect(answer.id).toBe(7);
    expect(answer.error?.message).toMatch(/contextId/);
    for (const id of [a1.id, a2!.id, b1.id]) expect(raw).not.toContain(id);
  });
});

describe("A2A's limits hold (issue 38)", () => {
  it("--max-concurrent: a task past the bound fails saying so, without a cast; the slot comes back", async () => {
    const url = await serve([wait, done("after")], { maxConcurrent: 1 });
    const client = await a2aClient(url);
    const busy = await running(client);
    const refused = await sent(client, "one more");
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(refused.status?.message)).toContain("1 casts are running");
    // A2A's casts count against the server's one bound: POST /cast is refused too.
    const cast = await fetch(`${url}/cast`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ intent: "go" }),
    });
    expect(cast.status).toBe(429);
    expect((await (await fetch(`${url}/healthz`)).json()) as unknown).toMatchObject({ running: 1 });
    await busy.cancel();
    expect((await (await fetch(`${url}/healthz`)).json()) as unknown).toMatchObject({ running: 0 });
    const after = await sent(client, "now");
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("--max-sessions bounds the tasks kept: the oldest ended ones go first, a running one never", async () => {
    const url = await serve([wait, done("1"), done("2"), done("3")], { maxSessions: 2 });
    const client = await a2aClient(url);
    const busy = await running(client);
    const ended: Task[] = [];
    for (const text of ["1", "2", "3"]) ended.push(await sent(client, text));
    const state = (id: string) =>
      client.getTask({ tenant: "", id }).then(
        (t) => t.status?.state,
        (err: unknown) => String(err),
      );
    // The running task is kept though it is the oldest; of the ended ones only the newest fits.
    expect(await state(busy.task.id)).toBe(TaskState.TASK_STATE_WORKING);
    expect(await state(ended[0]!.id)).toMatch(/not found/i);
    expect(await state(ended[1]!.id)).toMatch(/not found/i);
    expect(await state(ended[2]!.id)).toBe(TaskState.TASK_STATE_COMPLETED);
    await busy.cancel();
    expect(await state(busy.task.id)).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
