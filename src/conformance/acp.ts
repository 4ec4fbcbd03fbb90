/**
 * `acp_exchange` (PROD-6, PROD-7, PROD-9): JSON-RPC requests sent in order to the real ACP agent
 * (src/protocols/acp) over an in-memory stream, each answered before the next is sent. The
 * session updates that arrive while a request runs are kept with its response. In params,
 * `$session` is the id the last `session/new` answered and `$session_N` the Nth one's (from 0);
 * loosely written params are completed first (`wellFormed`). `acp_responses` (check-acp.ts) reads what came back.
 */
import { ConfigError } from "../core/errors.js";
import type { Built } from "./build.js";
import type { Cantrip } from "../core/cantrip.js";
import type { Loom } from "../loom/core/index.js";
import type { AnyMessage } from "@agentclientprotocol/sdk";

/** One request of the exchange and what came back for it. */
export interface AcpRecord {
  id: unknown;
  method: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  /** The `session/update` payloads that arrived while it ran. */
  updates: Record<string, unknown>[];
}

type Message = Record<string, unknown>;

const STEP_KEYS = new Set(["id", "method", "params"]);

/** Runs the exchange against the cantrip of the case's default LLM; returns what came back. */
export async function runAcpExchange(
  steps: unknown,
  built: Built,
): Promise<{ records: AcpRecord[]; cantrip: Cantrip<Loom>; llmKey: string }> {
  if (!Array.isArray(steps))
    throw new ConfigError("unsupported_action", "acp_exchange is a list of { id, method, params }");
  const { createAcpAgent } = await import("../protocols/acp/agent.js");
  const key = built.defaultLLM;
  const cantrip = await built.cantrip(key);
  const agent = await createAcpAgent({
    name: "conformance",
    cantripFor: () => Promise.resolve(cantrip),
    redactor: built.redactor,
  });
  const toAgent = new TransformStream<Message, Message>();
  const fromAgent = new TransformStream<Message, Message>();
  const connection = agent.app.connect({
    readable: toAgent.readable as unknown as ReadableStream<AnyMessage>,
    writable: fromAgent.writable,
  });
  const writer = toAgent.writable.getWriter();
  const reader = fromAgent.readable.getReader();
  const sessions: string[] = [];
  const records: AcpRecord[] = [];
  try {
    for (const step of steps) {
      const record = await exchange(step as Message, sessions, writer, reader);
      records.push(record);
      const made = (record.result as { sessionId?: unknown } | undefined)?.sessionId;
      if (record.method === "session/new" && typeof made === "string") sessions.push(made);
    }
  } finally {
    connection.close();
    agent.close();
  }
  return { records, cantrip, llmKey: key };
}

/** Sends one request and reads until its response; a notification (no id) waits for nothing. */
async function exchange(
  step: Message,
  sessions: string[],
  writer: WritableStreamDefaultWriter<Message>,
  reader: ReadableStreamDefaultReader<Message>,
): Promise<AcpRecord> {
  for (const k of Object.keys(step))
    if (!STEP_KEYS.has(k))
      throw new ConfigError("unsupported_action", `unsupported action: acp_exchange[].${k}`);
  const method = String(step["method"]);
  const params = wellFormed(method, substitute(step["params"] ?? {}, sessions), sessions);
  const record: AcpRecord = { id: step["id"], method, updates: [] };
  const message: Message = { jsonrpc: "2.0", method, params };
  if (step["id"] !== undefined) message["id"] = step["id"];
  await writer.write(message);
  if (step["id"] === undefined) return record;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new ConfigError("acp_closed", `the agent closed before answering ${method}`);
    if (value["method"] === "session/update")
      record.updates.push((value["params"] as { update: Message }).update);
    else if (value["id"] === step["id"] && value["method"] === undefined) {
      if ("result" in value) record.result = value["result"];
      if ("error" in value) record.error = value["error"] as AcpRecord["error"];
      return record;
    }
  }
}

/**
 * Another suite's loose spelling → the protocol's message (the agent itself stays strict):
 * `session/new` without `cwd`/`mcpServers` gets the runner's folder and none; `session/prompt`
 * without `sessionId` goes to the last session, and a `prompt` written as a string is one text
 * block. Whatever the step does write is sent as written.
 */
function wellFormed(method: string, params: unknown, sessions: string[]): unknown {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return params;
  const p = { ...(params as Record<string, unknown>) };
  if (method === "session/new") {
    p["cwd"] ??= process.cwd();
    p["mcpServers"] ??= [];
  }
  if (method === "session/prompt") {
    if (p["sessionId"] === undefined && sessions.length > 0) p["sessionId"] = sessions.at(-1);
    if (typeof p["prompt"] === "string") p["prompt"] = [{ type: "text", text: p["prompt"] }];
  }
  return p;
}

/** `$session` and `$session_N` in params → the ids the agent gave. */
function substitute(value: unknown, sessions: string[]): unknown {
  if (typeof value === "string") {
    const m = /^\$session(?:_(\d+))?$/.exec(value);
    if (!m) return value;
    const id = m[1] === undefined ? sessions.at(-1) : sessions[Number(m[1])];
    if (id === undefined)
      throw new ConfigError("unsupported_action", `acp_exchange: ${value} names no session yet`);
    return id;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, sessions));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, sessions)]));
  return value;
}
