import { TaskState, type Part } from "@a2a-js/sdk";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { a2aClient, artifactText, isTask, sendParams } from "../support/a2a.js";

// Issues 26 + A2A: a message's data part is the spell's inputs, checked by castIntent (the same
// check as `spell run --input`, POST /cast and MCP); a bad one fails the task, nothing is cast.
const TYPED = `name: typed
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: summarized } }] }] }
identity: {}
inputs:
  type: object
  properties: { path: { type: string }, words: { type: integer, minimum: 10, default: 100 } }
  required: [path]
intent: "Summarize {{path}} in {{words}} words."
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;
const PLAIN = TYPED.replace(/inputs:[\s\S]*?words\."\n/, "");

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(text: string) {
  const loaded = await loadSpellText(text, "typed.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { client: await a2aClient(url), loaded };
}

const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  mediaType: "application/json",
  filename: "",
  metadata: {},
});

function withData(value: unknown, text?: string) {
  const params = sendParams(text ?? "");
  params.message!.parts =
    text === undefined ? [dataPart(value)] : [...params.message!.parts, dataPart(value)];
  return params;
}

const intents = (loaded: Awaited<ReturnType<typeof serve>>["loaded"]) =>
  loaded
    .cantrip!.loom.turns()
    .map((t) => t.metadata?.["intent"])
    .filter((i) => i !== undefined);

describe("A2A messages and typed inputs (the SDK's client, loopback)", () => {
  it("a data part is the inputs: checked, defaults filled, substituted into the spell's intent", async () => {
    const { client, loaded } = await serve(TYPED);
    const result = await client.sendMessage(withData({ path: "README.md" }));
    expect(isTask(result)).toBe(true);
    if (!isTask(result)) return;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(result)).toBe("summarized");
    expect(intents(loaded)).toEqual(["Summarize README.md in 100 words."]);
  });

  it("a bad data part fails the task naming the field; nothing is cast", async () => {
    const { client, loaded } = await serve(TYPED);
    const result = await client.sendMessage(withData({ path: "a", words: 3 }));
    if (!isTask(result)) throw new Error("expected a task");
    expect(result.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = result.status?.message?.parts.map((p) =>
      p.content?.$case === "text" ? p.content.value : "",
    );
    expect(said).toEqual(["bad_input: input words: must be >= 10"]);
    const missing = await client.sendMessage(withData({}));
    if (!isTask(missing)) throw new Error("expected a task");
    expect(missing.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(missing.status?.message?.parts)).toContain("input path: is required");
    expect(loaded.cantrip!.loom.size).toBe(0);
  });

  it("a spell without inputs: the text part is the intent; a data part is refused, nothing cast", async () => {
    const { client, loaded } = await serve(PLAIN);
    const ok = await client.sendMessage(sendParams("summarize the README"));
    if (!isTask(ok)) throw new Error("expected a task");
    expect(ok.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(intents(loaded)).toEqual(["summarize the README"]);
    const size = loaded.cantrip!.loom.size;
    const refused = await client.sendMessage(withData({ path: "x" }, "summarize"));
    if (!isTask(refused)) throw new Error("expected a task");
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(refused.status?.message?.parts)).toContain("bad_input");
    expect(loaded.cantrip!.loom.size).toBe(size);
  });
});
