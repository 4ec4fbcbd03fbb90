/**
 * `spell serve`: a spell over HTTP (fastify). POST /cast, sessions (summon/send), a session's
 * loom, /healthz and /openapi.json. JSON errors for bad input, a bearer token when set, a bound
 * on concurrent casts (429 + Retry-After beyond it), SSE when the client asks for it, and a
 * client that disconnects cancels its cast. Sessions are bounded (`maxSessions`, 503 past it)
 * and let go when idle (`sessionIdleMs`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { EventListener } from "../../core/events.js";
import type { LoadedSpell } from "../../spell/index.js";
import { a2aRoutes } from "../a2a/routes.js";
import { cast, fail, sentRedacted, type CastSlots } from "./cast-route.js";
import { guard } from "./guard.js";
import { CAST_BODY, openApiDocument, routeCatalog } from "./openapi.js";
import { castBodyMessage, type BodyIssue } from "./cast-body.js";
import type { ErrorCode } from "../../core/error-codes.js";
import { ConfigError } from "../../core/errors.js";
import { castIntent, type SpellCall } from "../../spell/inputs.js";
import { DEFAULT_SESSION_LIMITS, Sessions, SessionsFull } from "./sessions.js";
import { sessionRoutes } from "./session-routes.js";
import { approvalRoutes, PendingApprovals } from "./approval-routes.js";
import { mcpRoutes } from "./mcp-route.js";
import { redactedJson } from "../redact-out.js";
import { redactDeep } from "../../core/redact-stream.js";
import { timeoutOptions, type ServeTimeouts } from "./timeouts.js";

export interface ServeOptions {
  /** When set, every route needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** Casts running at once; more get 429 with Retry-After. Default 16. */
  maxConcurrent?: number | undefined;
  /** Origins whose browser pages may call the server (CORS); without a token, no other. */
  allowOrigins?: readonly string[] | undefined;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number | undefined;
  /** How long a client may take (headers, body, silence); see timeouts.ts for the defaults. */
  timeouts?: Partial<ServeTimeouts> | undefined;
  /** Sessions open at once; more get 503. Default 1,000. */
  maxSessions?: number | undefined;
  /** A session unused this long is let go (a loom file brings it back when used). Default 15 min. */
  sessionIdleMs?: number | undefined;
  /** A fresh listener for each cast and send (e.g. OpenTelemetry spans, cli/otel). */
  observe?: (() => EventListener) | undefined;
}

export async function createHttpServer(
  loaded: LoadedSpell,
  options: ServeOptions = {},
): Promise<FastifyInstance> {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    logger: false,
    ...timeoutOptions(options.timeouts),
  });
  const routes = routeCatalog(app); // before any route: /openapi.json lists them all
  const cantrip = loaded.cantrip!;
  const approvals = new PendingApprovals(loaded.redactor); // issue 25
  const sessions = new Sessions(
    cantrip,
    {
      maxSessions: options.maxSessions ?? DEFAULT_SESSION_LIMITS.maxSessions,
      idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_LIMITS.idleMs,
    },
    (id) => approvals.approver(id),
  );
  const state: CastSlots = {
    running: 0,
    limit: options.maxConcurrent ?? 16,
    observe: options.observe,
  };
  const secrets = loaded.redactor;
  const redact = (t: string) => loaded.redactor.redact(t);
  guard(app, options);
  app.setErrorHandler(errorHandler(loaded, redact));
  app.setNotFoundHandler((req, reply) => fail(reply, 404, "unknown_route", noRoute(req, redact)));
  app.addHook("onClose", () => sessions.close());
  app.get("/healthz", () => ({
    ok: true,
    running: state.running,
    sessions: sessions.size,
  }));
  redactAnswers(app, redact);
  app.get("/openapi.json", (_req, reply) =>
    reply
      .type("application/json; charset=utf-8")
      .send(redactedJson(openApiDocument(loaded.name, routes()), redact)),
  );
  app.post<{ Body: SpellCall }>("/cast", { schema: { body: CAST_BODY } }, async (req, reply) => {
    const intent = await castIntent(loaded.spell, req.body); // a bad input: 400, nothing cast
    return cast(req, reply, state, secrets, (onEvent, signal) =>
      cantrip.cast(intent, { signal, ...(onEvent ? { onEvent } : {}) }),
    );
  });
  sessionRoutes(app, sessions, state, cantrip, secrets, approvals);
  approvalRoutes(app, sessions, approvals);
  a2aRoutes(app, loaded, state, secrets, options.maxSessions ?? DEFAULT_SESSION_LIMITS.maxSessions);
  mcpRoutes(app, loaded);
  return app;
}

/**
 * Issue 38: every answer that is not a stream leaves redacted as the text it is sent as (the
 * streams — SSE, /mcp, A2A — redact each message themselves), whatever route made it. A cast's
 * answer was redacted as this very text by the cast route (issue 40: not twice). An answer a
 * route gives as an object (an error, a session, the pending approvals) has its strings and keys
 * redacted before Fastify encodes it too: encoding escapes a secret once more.
 */
function redactAnswers(app: FastifyInstance, redact: (t: string) => string): void {
  app.addHook("preSerialization", (_req, _reply, payload, done) => {
    done(null, redactDeep(payload, redact));
  });
  app.addHook("onSend", (_req, reply, payload, done) => {
    done(
      null,
      typeof payload === "string" && !sentRedacted(reply, payload) ? redact(payload) : payload,
    );
  });
}

/** A method and path no route takes (Fastify sends both here): what was asked, and where routes are listed. */
function noRoute(req: FastifyRequest, redact: (t: string) => string): string {
  const path = req.url.split("?")[0] ?? "";
  return redact(`no route ${req.method} ${path} (GET /openapi.json lists the routes)`);
}

/** Every error a route throws, as `{ error: { code, message } }` with its status. */
function errorHandler(loaded: LoadedSpell, redact: (t: string) => string) {
  return (
    err: { statusCode?: number; code?: string; message: string; validation?: BodyIssue[] },
    req: FastifyRequest,
    reply: FastifyReply,
  ) => {
    if (err instanceof SessionsFull)
      return fail(reply.header("retry-after", "5"), 503, "too_many_sessions", err.message);
    if (err.code === "FST_ERR_VALIDATION" && req.routeOptions.url === "/cast")
      err.message = castBodyMessage(err.validation, err.message, !!loaded.spell.inputs);
    const status = err.statusCode ?? (err instanceof ConfigError ? 400 : 500);
    // A thrown error's own code goes out as it is: a SpellbookError's (in the table), or
    // Fastify's own (FST_…, not in it).
    const code = (status === 413 ? "body_too_large" : (err.code ?? "bad_request")) as ErrorCode;
    return fail(reply, status, code, redact(err.message));
  };
}
