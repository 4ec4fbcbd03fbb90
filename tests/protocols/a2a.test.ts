import { AgentCard, TaskState, type StreamResponse } from "@a2a-js/sdk";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { a2aClient, artifactText, isTask, sendParams } from "../support/a2a.js";

// Issue 26, "Served over A2A": the protocol's own JS SDK client against a loopback spell serve.
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });
const spellText = (responses: unknown[]) => `name: reviewer
description: Reviews a change and says what it thinks.
llm: { provider: scripted, responses: ${JSON.stringify(responses)} }
identity: { system_prompt: "Answer." }
circle:
  gates: [done, echo, { name: wait, behavior: { delay_ms: 600000, result: waited } }]
  wards: [{ max_turns: 6 }]
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(responses: unknown[], options: ServeOptions = {}) {
  const loaded = await loadSpellText(spellText(responses), "reviewer.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, options);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, loaded };
}

async function collect(stream: AsyncGenerator<StreamResponse>) {
  const events: StreamResponse[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe("spell serve over A2A (the SDK's client, loopback)", () => {
  it("publishes an agent card of the SDK's shape: name, description, a skill, modes, the JSON-RPC URL, streaming", async () => {
    const { url } = await serve([]);
    const res = await fetch(`${url}/.well-known/agent-card.json`, {
      headers: { "a2a-version": "1.0" },
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, unknown>;
    // The SDK's own codec reads it and writes back the same card: nothing unknown, nothing lost.
    const card = AgentCard.fromJSON(json);
    expect(AgentCard.toJSON(card)).toEqual(json);
    expect(card).toMatchObject({
      name: "reviewer",
      description: "Reviews a change and says what it thinks.",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
    });
    expect(card.skills).toHaveLength(1);
    expect(card.skills[0]).toMatchObject({ id: "reviewer", name: "reviewer" });
    expect(card.supportedInterfaces).toContainEqual(
      expect.objectContaining({
        url: `${url}/a2a`,
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0",
      }),
    );
    // The SDK's client takes it as it is.
    const client = await a2aClient(url);
    expect(client.protocolVersion).toBe("1.0");
  });

  it("message/send (SDK client): the cast runs, the task completes with the answer as its artifact; tasks/get reads it back", async () => {
    const { url } = await serve([echo("looking"), done("looks good")]);
    const client = await a2aClient(url);
    const result = await client.sendMessage(sendParams("review this"));
    expect(isTask(result)).toBe(true);
    if (!isTask(result)) return;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(result)).toBe("looks good");
    const again = await client.getTask({ tenant: "", id: result.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(again)).toBe("looks good");
  });

  it("message/stream: a status update per turn, then the artifact, then the final completed status", async () => {
    const { url } = await serve([echo("one"), echo("two"), done("three")]);
    const client = await a2aClient(url);
    const events = await collect(client.sendMessageStream(sendParams("count")));
    const cases = events.map((e) => e.payload?.$case);
    expect(cases[0]).toBe("task");
    const updates = events.flatMap((e) =>
      e.payload?.$case === "statusUpdate" ? [e.payload.value] : [],
    );
    const turnOf = (u: (typeof updates)[number]) =>
      (u.metadata?.["spellbook"] as { turn?: number } | undefined)?.turn;
    const turns = updates.filter((u) => turnOf(u) !== undefined);
    expect(turns.map(turnOf)).toEqual([1, 2, 3]);
    expect(turns.every((u) => u.status?.state === TaskState.TASK_STATE_WORKING)).toBe(true);
    const artifact = events.findIndex((e) => e.payload?.$case === "artifactUpdate");
    expect(artifact).toBeGreaterThan(0);
    const last = events.at(-1)!.payload;
    expect(last?.$case).toBe("statusUpdate");
    if (last?.$case !== "statusUpdate") return;
    expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifact).toBeLessThan(events.length - 1);
  });

  it("tasks/cancel aborts the cast waiting in a gate: the task is canceled, the loom records it truncated", async () => {
    const { url, loaded } = await serve([
      { tool_calls: [{ gate: "wait", args: {} }] },
      done("never"),
    ]);
    const client = await a2aClient(url);
    const stream = client.sendMessageStream(sendParams("wait for it"));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe("task");
    const taskId = first.value!.payload!.$case === "task" ? first.value!.payload!.value.id : "";
    // The cast is running (its working status arrived) before it is cancelled.
    const second = await stream.next();
    expect(second.value?.payload?.$case).toBe("statusUpdate");
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for await (const e of { [Symbol.asyncIterator]: () => stream }) rest.push(e);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    const turns = loaded.cantrip!.loom.turns();
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns.at(-1))).toContain("cancelled");
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
  });

  it("answers A2A 0.3's method names (message/send, tasks/get) for clients of the older protocol", async () => {
    // Each message is a cast of the served cantrip: it starts where the cantrip stands (issue 45).
    const { url } = await serve([done("old and fine")]);
    const rpc = (method: string, params: unknown) =>
      fetch(`${url}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      }).then((r) => r.json() as Promise<{ result?: Record<string, unknown>; error?: unknown }>);
    const sent = await rpc("message/send", {
      message: {
        kind: "message",
        messageId: "m-1",
        role: "user",
        parts: [{ kind: "text", text: "hello" }],
      },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(JSON.stringify(sent.result!["artifacts"])).toContain("old and fine");
    const got = await rpc("tasks/get", { id: sent.result!["id"] });
    expect(got.result).toMatchObject({ id: sent.result!["id"], status: { state: "completed" } });
    // message/stream: Server-Sent Events of 0.3's shapes, ending with the final status.
    const streamed = await fetch(`${url}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "message/stream",
        params: {
          message: {
            kind: "message",
            messageId: "m-2",
            role: "user",
            parts: [{ kind: "text", text: "again" }],
          },
        },
      }),
    });
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await streamed.text())
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => (JSON.parse(l.slice(6)) as { result: Record<string, unknown> }).result);
    expect(events[0]).toMatchObject({ kind: "task" });
    expect(events.some((e) => e["kind"] === "artifact-update")).toBe(true);
    expect(JSON.stringify(events)).toContain("old and fine");
    expect(events.at(-1)).toMatchObject({
      kind: "status-update",
      final: true,
      status: { state: "completed" },
    });
    // tasks/cancel of a task that has ended is refused as the protocol says (not cancelable).
    const cancel = await rpc("tasks/cancel", { id: sent.result!["id"] });
    expect(cancel.error).toMatchObject({ code: -32002 });
    // The 0.3 card (no A2A-Version header) names its JSON-RPC URL.
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(card).toMatchObject({
      url: `${url}/a2a`,
      preferredTransport: "JSONRPC",
      name: "reviewer",
    });
  });

  it("keeps at most --max-sessions tasks: past it the oldest ended task is forgotten (tasks/get: not found)", async () => {
    const { url } = await serve([done("1"), done("2"), done("3")], { maxSessions: 2 });
    const client = await a2aClient(url);
    const ids: string[] = [];
    const contexts: string[] = [];
    for (const text of ["a", "b", "c"]) {
      const r = await client.sendMessage(sendParams(text));
      if (!isTask(r)) continue;
      ids.push(r.id);
      contexts.push(r.contextId);
    }
    expect(ids).toHaveLength(3);
    await expect(client.getTask({ tenant: "", id: ids[0]! })).rejects.toThrow(/not found/i);
    for (const id of ids.slice(1))
      expect((await client.getTask({ tenant: "", id })).status?.state).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );
    // Each task has a context of its own (ListTasks names one): the forgotten one lists nothing.
    for (const [i, contextId] of contexts.entries()) {
      const listed = await client.listTasks({
        tenant: "",
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: "",
        statusTimestampAfter: undefined,
      });
      expect(listed.tasks.map((t) => t.id)).toEqual(i === 0 ? [] : [ids[i]]);
    }
  });
});
