import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { methods, type RequestError } from "@agentclientprotocol/sdk";
import { createAcpAgent, type AcpAgent } from "../../src/protocols/acp/agent.js";
import { emptyUsage, type LLM, type LLMResponse } from "../../src/core/contract.js";
import { ScriptedLLM, type ScriptedResponse } from "../../src/llm/providers/scripted.js";
import { loadSpellText, type LoadOptions } from "../../src/spell/index.js";
import { initialize, testClient, type TestClient } from "../support/acp.js";

const done = (answer: string): ScriptedResponse => ({
  tool_calls: [{ gate: "done", args: { answer } }],
});
const spell = (gates = "") => `name: helper
llm: { provider: scripted, responses: [] }
identity: { system_prompt: "Help." }
circle:
  gates: [done, echo, { name: wait, behavior: { delay_ms: 600000, result: waited } }${gates}]
  wards: [{ max_turns: 4 }]
`;

let agent: AcpAgent | undefined;
let client: TestClient | undefined;
afterEach(() => {
  client?.connection.close();
  agent?.close();
  agent = client = undefined;
});

/** An agent for a spell whose LLM answers `responses` (recording what it was sent). */
async function start(
  responses: ScriptedResponse[],
  opts: { gates?: string; load?: LoadOptions } = {},
) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const base: LoadOptions = { loomPath: "memory", llm, env: {}, ...opts.load };
  const loaded = await loadSpellText(spell(opts.gates), join(tmpdir(), "helper.yaml"), base);
  agent = await createAcpAgent({
    name: loaded.name,
    // A session's cwd is where relative file-gate roots resolve: the spell loaded there.
    cantripFor: async (cwd) =>
      (
        await loadSpellText(spell(opts.gates), join(tmpdir(), "helper.yaml"), {
          ...base,
          loom: loaded.cantrip!.loom,
          rootDir: cwd,
        })
      ).cantrip!,
    redactor: loaded.redactor,
  });
  client = testClient(agent.app);
  await initialize(client);
  return { llm, loaded, client };
}

const newSession = async (c: TestClient, cwd = tmpdir()) =>
  (await c.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;

const promptText = (c: TestClient, sessionId: string, text: string) =>
  c.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });

async function rejection(p: Promise<unknown>): Promise<RequestError> {
  try {
    await p;
  } catch (err) {
    return err as RequestError;
  }
  throw new Error("expected the request to fail");
}

describe("spell acp (in-process, the SDK's client)", () => {
  it("initialize advertises what the agent supports", async () => {
    const { client } = await start([]);
    const again = await initialize(client);
    expect(again.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { embeddedContext: true },
    });
    expect(again.agentInfo).toMatchObject({ title: "helper" });
  });

  it("a prompt streams its updates: text, the gate call and its result, the answer (PROD-6)", async () => {
    const { client } = await start([
      { content: "Checking.", tool_calls: [{ gate: "echo", args: { text: "ping" } }] },
      done("pong"),
    ]);
    const id = await newSession(client);
    const answer = await promptText(client, id, "say pong");
    expect(answer.stopReason).toBe("end_turn");
    expect(answer._meta).toMatchObject({ spellbook: { result: "pong", reason: "done", turns: 2 } });
    expect(client.kinds(id)).toEqual([
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    const updates = client.updates.map((u) => u.update);
    expect(updates[1]).toMatchObject({
      title: "echo",
      status: "in_progress",
      rawInput: { text: "ping" },
    });
    expect(updates[2]).toMatchObject({
      toolCallId: (updates[1] as { toolCallId: string }).toolCallId,
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "ping" } }],
    });
    expect(client.message(id)).toBe("Checking.pong");
  });

  it("a follow-up prompt sees the earlier one; two sessions never see each other (PROD-7)", async () => {
    const { client, llm } = await start([done("one"), done("two"), done("three")]);
    const a = await newSession(client);
    const b = await newSession(client);
    expect(a).not.toBe(b);
    await promptText(client, a, "remember AARDVARK");
    await promptText(client, a, "what did I say?");
    await promptText(client, b, "fresh start");
    const sent = llm.invocations.map((q) => JSON.stringify(q.messages));
    expect(sent[1]).toContain("remember AARDVARK");
    expect(sent[1]).toContain("what did I say?");
    expect(sent[2]).not.toContain("AARDVARK");
    expect(client.message(a)).toBe("onetwo");
    expect(client.message(b)).toBe("three");
  });

  it("accepts the common prompt variants and embedded resources", async () => {
    const { client, llm } = await start([done("1"), done("2"), done("3")]);
    const id = await newSession(client);
    await client.agent.request("session/prompt", { sessionId: id, prompt: "as a string" });
    await client.agent.request("session/prompt", {
      sessionId: id,
      content: [{ type: "text", text: "as content" }],
    });
    await client.agent.request(methods.agent.session.prompt, {
      sessionId: id,
      prompt: [
        { type: "text", text: "summarise" },
        { type: "resource", resource: { uri: "file:///a.md", text: "RESOURCE BODY" } },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
    });
    const last = (i: number) => JSON.stringify(llm.invocations[i]!.messages.at(-1));
    expect(last(0)).toContain("as a string");
    expect(last(1)).toContain("as content");
    expect(last(2)).toContain("summarise");
    expect(last(2)).toContain("RESOURCE BODY");
  });

  it("a prompt with no usable text is invalid params, and the agent goes on", async () => {
    const { client } = await start([done("still here")]);
    const id = await newSession(client);
    const err = await rejection(
      client.agent.request(methods.agent.session.prompt, {
        sessionId: id,
        prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      }),
    );
    expect(err.code).toBe(-32602);
    expect(err.message).toContain("no text");
    const none = await rejection(client.agent.request("session/prompt", { sessionId: id }));
    expect(none.code).toBe(-32602);
    expect((await promptText(client, id, "hello")).stopReason).toBe("end_turn");
  });

  it("stays strict: a session/new without cwd and mcpServers (the runner completes it) is invalid params", async () => {
    const { client } = await start([done("still here")]);
    const bare = await rejection(client.agent.request("session/new", {}));
    expect(bare.code).toBe(-32602);
    expect(bare.message).toContain("Invalid params");
    // (a prompt written as a string is one of the prompt variants the agent accepts, above)
    const id = await newSession(client);
    expect((await promptText(client, id, "hello")).stopReason).toBe("end_turn");
  });

  it("an unknown session id is 'resource not found'; an unknown method is 'method not found'", async () => {
    const { client } = await start([]);
    const err = await rejection(promptText(client, "ent_nope", "hi"));
    expect(err.code).toBe(-32002);
    expect(err.data).toMatchObject({ sessionId: "ent_nope" });
    const unknown = await rejection(client.agent.request("session/teleport", {}));
    expect(unknown.code).toBe(-32601);
  });

  it("a cast cut by max_turns answers max_turn_requests, not end_turn", async () => {
    const echo = (text: string): ScriptedResponse => ({
      tool_calls: [{ gate: "echo", args: { text } }],
    });
    const { client } = await start([echo("1"), echo("2"), echo("3"), echo("4"), done("late")]);
    const id = await newSession(client);
    const answer = await promptText(client, id, "loop");
    expect(answer.stopReason).toBe("max_turn_requests");
    expect(answer._meta).toMatchObject({
      spellbook: { status: "truncated", reason: "max_turns", turns: 4 },
    });
  });

  it("two prompts sent at once to one session run one after the other, in order", async () => {
    const { client, llm } = await start(
      [{ tool_calls: [{ gate: "pause", args: {} }] }, done("first"), done("second")],
      { gates: ", { name: pause, behavior: { delay_ms: 200, result: paused } }" },
    );
    const id = await newSession(client);
    const a = promptText(client, id, "intent ALPHA");
    const b = promptText(client, id, "intent BRAVO");
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra._meta).toMatchObject({ spellbook: { result: "first" } });
    expect(rb._meta).toMatchObject({ spellbook: { result: "second" } });
    const sent = llm.invocations.map((q) => JSON.stringify(q.messages));
    expect(sent).toHaveLength(3);
    // ALPHA's two queries never see BRAVO; BRAVO's sees ALPHA's whole exchange.
    expect(sent[0]).not.toContain("BRAVO");
    expect(sent[1]).not.toContain("BRAVO");
    expect(sent[1]).toContain("paused");
    expect(sent[2]).toContain("ALPHA");
    expect(sent[2]).toContain("first");
    expect(sent[2]).toContain("BRAVO");
  });

  it("session/cancel aborts a prompt waiting in a gate; the prompt answers cancelled", async () => {
    const { client, loaded } = await start([
      { tool_calls: [{ gate: "wait", args: {} }] },
      done("never"),
    ]);
    const id = await newSession(client);
    const running = promptText(client, id, "wait for it");
    // The gate has started once its tool_call update has arrived.
    while (!client.kinds(id).includes("tool_call")) await new Promise((r) => setTimeout(r, 5));
    await client.agent.notify(methods.agent.session.cancel, { sessionId: id });
    const answer = await running;
    expect(answer.stopReason).toBe("cancelled");
    expect(client.kinds(id)).toContain("tool_call_update");
    const turns = loaded.cantrip!.loom.turns();
    expect(turns.at(-1)).toMatchObject({ entity_id: id });
    expect(JSON.stringify(turns.at(-1))).toContain("cancelled");
    // The session goes on after a cancel.
  });

  it("a session's cwd is where relative file-gate roots resolve", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-cwd-"));
    writeFileSync(join(dir, "notes.txt"), "NOTES IN THE CWD");
    const { client } = await start(
      [{ tool_calls: [{ gate: "read", args: { path: "notes.txt" } }] }, done("read it")],
      { gates: ", read" },
    );
    const id = await newSession(client, dir);
    await promptText(client, id, "read notes.txt");
    const results = client.updates
      .map((u) => u.update)
      .filter((u) => u.sessionUpdate === "tool_call_update");
    expect(JSON.stringify(results[0])).toContain("NOTES IN THE CWD");
  });

  it("secrets never reach the client (PROD-8)", async () => {
    const { client, loaded } = await start([
      {
        content: "the key is sk-SECRET-123456 ok",
        tool_calls: [{ gate: "echo", args: { text: "sk-SECRET-123456" } }],
      },
      done("sk-SECRET-123456"),
    ]);
    loaded.redactor.add("sk-SECRET-123456");
    const id = await newSession(client);
    const answer = await promptText(client, id, "leak it");
    const sent = JSON.stringify([client.updates, answer]);
    expect(sent).not.toContain("sk-SECRET-123456");
    expect(sent).toContain("[REDACTED]");
  });

  it("a secret spelled with JSON escapes in a tool call's arguments is redacted once decoded (PROD-8)", async () => {
    // A provider hands over arguments as the model wrote them: \u escapes are valid JSON, and
    // the text holds the secret in no form the redactor knows until it is decoded.
    const escaped = [..."sk-SECRET-123456"]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      .join("");
    const replies: LLMResponse[] = [
      {
        content: null,
        toolCalls: [{ id: "c1", name: "echo", arguments: `{"text":"${escaped}"}` }],
        usage: emptyUsage(),
      },
      {
        content: null,
        toolCalls: [{ id: "c2", name: "done", arguments: '{"answer":"ok"}' }],
        usage: emptyUsage(),
      },
    ];
    const llm: LLM = { name: "raw/escapes", query: () => Promise.resolve(replies.shift()!) };
    const { client, loaded } = await start([], { load: { llm } });
    loaded.redactor.add("sk-SECRET-123456");
    const id = await newSession(client);
    await promptText(client, id, "leak it");
    const sent = JSON.stringify(client.updates);
    expect(sent).toContain("tool_call");
    expect(sent).not.toContain("sk-SECRET-123456");
  });
});
