/**
 * `spell acp`: a spell as an Agent Client Protocol agent (PROD-6, PROD-7), built on the SDK's
 * agent app (`@agentclientprotocol/sdk`, ACP v1). The SDK answers what is not ours to answer:
 * malformed lines (-32700), requests before `initialize` (-32600), unknown methods (-32601),
 * params that fail the schema (-32602). A session is a summoned entity; a prompt is one send;
 * engine events become `session/update` notifications; `session/cancel` aborts the send.
 */
import type { AgentApp, AgentContext, PromptResponse } from "@agentclientprotocol/sdk";
import type * as SdkModule from "@agentclientprotocol/sdk";
import type { Cantrip } from "../../core/cantrip.js";
import { errorMessage } from "../../core/errors.js";
import { redactDeep, redactingListener } from "../../core/redact-stream.js";
import type { Redactor } from "../../core/redact.js";
import type { CastResult } from "../../core/result.js";
import type { Loom } from "../../loom/core/index.js";
import { PromptParamsError, parsePrompt } from "./prompt.js";
import { AcpSessions, type AcpSession } from "./sessions.js";
import { updateMapper, type SessionUpdate } from "./updates.js";
import { historyUpdates } from "./load.js";
import { AcpAsker } from "./permission.js";
import { recordSession, sessionEntity } from "../../loom/entities/index.js";

type Sdk = typeof SdkModule;

export interface AcpAgentOptions {
  /** The spell's name: `agentInfo.title` in the initialize answer. */
  name: string;
  version?: string;
  /** The cantrip a session summons from; `cwd` is where relative file-gate roots resolve. */
  cantripFor: (cwd: string) => Promise<Cantrip<Loom>>;
  /** Secrets the spell knows: nothing sent to the client contains them (PROD-8). */
  redactor: Pick<Redactor, "redact" | "longest" | "longestEscaped">;
  /** The LLM's context window, when the spell names one: the size `usage_update` reports. */
  contextWindow?: number | undefined;
}

/** The agent app, its sessions, and a way to release them (connection closed, SIGTERM). */
export interface AcpAgent {
  app: AgentApp;
  sessions: AcpSessions;
  close: () => void;
}

/** Builds the agent app; the SDK is loaded here, on first use (`spell --help` never loads it). */
export async function createAcpAgent(options: AcpAgentOptions): Promise<AcpAgent> {
  const sdk = await import("@agentclientprotocol/sdk");
  const sessions = new AcpSessions();
  const app = sdk
    .agent({ name: "spellbook" })
    .onRequest(sdk.methods.agent.initialize, ({ params }) => ({
      // We speak v1; a client asking for another version reads ours and decides.
      protocolVersion: Math.min(params.protocolVersion, sdk.PROTOCOL_VERSION),
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { embeddedContext: true, image: false, audio: false },
      },
      agentInfo: {
        name: "spellbook",
        title: options.redactor.redact(options.name), // issue 38: a name may hold a secret
        version: options.version ?? "0.1.0",
      },
      authMethods: [],
    }))
    .onRequest(sdk.methods.agent.session.new, async ({ params }) => {
      const cantrip = await options.cantripFor(params.cwd);
      const asker = new AcpAsker((t) => options.redactor.redact(t)); // issue 25
      const entity = cantrip.summon({ onApproval: asker.approver });
      await entity.ready(); // registered beside the loom: a later process can load the session
      // The session is its entity: recorded beside a loom file as the ACP session it is.
      const file = cantrip.loom.store.file;
      if (file !== undefined) await recordSession(file, "acp", entity.id, entity.id);
      return { sessionId: sessions.add(params.cwd, cantrip, entity, asker).id };
    })
    .onRequest(sdk.methods.agent.session.load, async ({ params, client }) => {
      const session = await loadSession(sdk, sessions, options, params);
      await sendAll(
        client,
        session.id,
        historyUpdates(session, (t) => options.redactor.redact(t)),
      );
    })
    .onRequest(sdk.methods.agent.session.prompt, parser(sdk), async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw sdk.RequestError.sessionNotFound(params.sessionId);
      return prompt(sdk, sessions, session, params.intent, client, options);
    })
    .onNotification(sdk.methods.agent.session.cancel, ({ params }) => {
      sessions.cancel(params.sessionId);
    });
  return { app, sessions, close: () => sessions.close() };
}

/** `session/prompt` params in the variants clients send (prompt.ts); bad ones are -32602. */
function parser(sdk: Sdk) {
  return (raw: unknown) => {
    try {
      return parsePrompt(raw);
    } catch (err) {
      if (err instanceof PromptParamsError)
        throw sdk.RequestError.invalidParams(err.data, err.message);
      throw err;
    }
  };
}

/** One prompt: the send, its updates streamed as they happen, then the stop reason. */
async function prompt(
  sdk: Sdk,
  sessions: AcpSessions,
  session: AcpSession,
  intent: string,
  client: AgentContext,
  options: AcpAgentOptions,
): Promise<PromptResponse> {
  const mapper = updateMapper({
    rootId: session.entity.id,
    medium: session.cantrip.circle.mediumName,
    contextWindow: options.contextWindow,
  });
  let sent: Promise<unknown> = Promise.resolve();
  const send = (updates: SessionUpdate[]) => {
    for (const update of updates)
      sent = sent.then(() => notify(client, session.id, update)).catch(() => undefined);
  };
  const redact = (t: string) => options.redactor.redact(t);
  // The events come redacted; what the mapper decodes from them (a tool call's arguments, whose
  // JSON may spell a secret with \u escapes) is redacted again, as the client will read it.
  const listener = redactingListener(
    (e) => send(redactDeep(mapper.map(e), redact)),
    options.redactor,
  );
  // Issue 25: while this prompt runs, approval questions go to its client.
  if (session.asker) session.asker.client = client;
  const result = await sessions.prompt(session, intent, listener);
  // The answer's strings redacted before the mapper encodes it as text, then that text.
  const answer =
    result.status === "terminated"
      ? { ...result, result: redactDeep(result.result, redact) }
      : result;
  send(redactDeep(mapper.finish(answer), redact));
  await sent; // every update of the prompt reaches the client before its answer
  if (result.status === "failed") {
    const message = redact(errorMessage(result.error));
    throw sdk.RequestError.internalError({ code: result.error.code, message }, message);
  }
  return { stopReason: stopReason(result), _meta: redactDeep(promptMeta(result), redact) };
}

const notify = (client: AgentContext, sessionId: string, update: SessionUpdate) =>
  client.notify("session/update", { sessionId, update });

async function sendAll(client: AgentContext, sessionId: string, updates: SessionUpdate[]) {
  for (const update of updates) await notify(client, sessionId, update);
}

/** How ACP names why a prompt stopped. */
function stopReason(r: CastResult): PromptResponse["stopReason"] {
  if (r.status !== "truncated") return "end_turn";
  if (r.reason === "cancelled") return "cancelled";
  if (r.reason === "max_turns") return "max_turn_requests";
  if (r.reason === "max_tokens") return "max_tokens";
  return "end_turn";
}

/** What ACP has no field for: the cast's result, how it ended, its usage (`_meta.spellbook`). */
function promptMeta(r: CastResult) {
  const u = r.usage;
  return {
    spellbook: {
      status: r.status,
      reason: r.reason,
      result: r.result ?? null,
      turns: r.turns,
      entity_id: r.entityId,
      usage: {
        inputTokens: u.promptTokens,
        outputTokens: u.completionTokens,
        cachedReadTokens: u.cachedTokens,
        totalTokens: u.totalTokens,
      },
    },
  };
}

/**
 * `session/load`: a session this connection has, or one an earlier `spell acp` recorded beside the
 * loom file (any other entity of the loom — a child, a fork, an HTTP session — is not a session): summoned again by its id, its turns back in the context (and the
 * code medium's variables, by replay). An id the loom never saw is "resource not found".
 */
async function loadSession(
  sdk: Sdk,
  sessions: AcpSessions,
  options: AcpAgentOptions,
  params: { sessionId: string; cwd: string },
): Promise<AcpSession> {
  const known = sessions.get(params.sessionId);
  if (known) return known;
  const cantrip = await options.cantripFor(params.cwd);
  // With a loom file, only a session recorded as ACP's loads: not a child, a fork, an HTTP session.
  const file = cantrip.loom.store.file;
  if (file !== undefined && (await sessionEntity(file, "acp", params.sessionId)) === undefined)
    throw sdk.RequestError.sessionNotFound(params.sessionId);
  let entity;
  const asker = new AcpAsker((t) => options.redactor.redact(t));
  try {
    entity = cantrip.summon({ entity: params.sessionId, onApproval: asker.approver });
    await entity.ready();
  } catch (err) {
    entity?.dispose();
    const code = (err as { code?: unknown }).code;
    if (code === "unknown_entity" || code === "bad_entity_id" || code === "resume_unsupported")
      throw sdk.RequestError.sessionNotFound(params.sessionId);
    throw err;
  }
  return sessions.add(params.cwd, cantrip, entity, asker);
}
