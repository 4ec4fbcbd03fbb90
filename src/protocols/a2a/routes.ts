/**
 * `spell serve` over A2A: the agent card at /.well-known/agent-card.json and the JSON-RPC
 * endpoint at /a2a, behind the same guard as every route (guard.ts: the token, or loopback
 * names and allowed origins). Every answer — a JSON-RPC envelope, each SSE event, the card — is
 * redacted as every surface redacts (redact-out.ts: each string and key, then the text as sent),
 * so no `${env:…}` secret leaves in any form. The SDK is loaded on the first A2A request
 * (protocols/a2a/handler.ts), not when the server starts.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { LoadedSpell } from "../../spell/index.js";
import { A2A_PATH, AGENT_CARD_PATH } from "./card.js";
import type { A2AHandler } from "./handler.js";
import type { CastSlots, Secrets } from "../http/cast-route.js";
import { redactedJson } from "../redact-out.js";

export function a2aRoutes(
  app: FastifyInstance,
  loaded: LoadedSpell,
  slots: CastSlots,
  secrets: Secrets,
  /** Tasks remembered at once (`--max-sessions`); past it the oldest ended one is forgotten. */
  maxTasks: number,
): void {
  let handler: Promise<A2AHandler> | undefined;
  const load = () =>
    (handler ??= import("./handler.js").then((m) => m.createA2AHandler(loaded, slots, maxTasks)));
  const redact = (t: string) => secrets.redact(t);
  const json = (reply: FastifyReply, value: unknown) =>
    reply.type("application/json; charset=utf-8").send(redactedJson(value, redact));

  app.get(AGENT_CARD_PATH, async (req, reply) => {
    const card = (await load()).card(baseUrl(req), isLegacy(req));
    void reply.header("vary", "A2A-Version").header("cache-control", "no-cache");
    return json(reply, card);
  });

  app.post(A2A_PATH, { errorHandler: parseErrorHandler }, async (req, reply) => {
    const answer = await (await load()).handle(req.body, req.headers);
    if (answer.kind === "json") return json(reply, answer.body);
    // A task may run for minutes: the socket's silence bound does not apply to its stream.
    (req.raw.socket as Partial<Pick<typeof req.raw.socket, "setTimeout">>).setTimeout?.(0);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const send = (value: unknown, event = "") =>
      raw.write(`${event}data: ${redactedJson(value, redact)}\n\n`);
    try {
      for await (const envelope of answer.events) send(envelope);
    } catch (err) {
      const id = (req.body as { id?: string | number } | null)?.id ?? null;
      send((await load()).streamError(err, id, isLegacy(req)), "event: error\n");
    }
    raw.end();
  });
}

/** Fastify's codes for a JSON body it could not read. */
const UNREADABLE = new Set(["FST_ERR_CTP_INVALID_JSON_BODY", "FST_ERR_CTP_EMPTY_JSON_BODY"]);

/**
 * A body that is not JSON is JSON-RPC's parse error (-32700, id null), as the A2A TCK checks;
 * any other error goes to the server's handler.
 */
function parseErrorHandler(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (!UNREADABLE.has(err.code)) throw err; // the server's handler (server.ts)
  const error = { code: -32700, message: "Parse error: the request body is not JSON" };
  void reply
    .code(400)
    .type("application/json; charset=utf-8")
    .send({ jsonrpc: "2.0", id: null, error });
}

/** A request of A2A 0.3: it says so, or names no version (as the SDK's Express handler reads it). */
const isLegacy = (req: FastifyRequest): boolean => (req.headers["a2a-version"] ?? "0.3") === "0.3";

/** The server's base URL as this client reached it (the guard has checked its Host). */
function baseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? "127.0.0.1"}`;
}
