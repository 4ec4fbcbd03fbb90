/**
 * `spell serve`: a spell over HTTP (fastify). POST /cast, sessions (summon/send), a session's
 * loom, /healthz and /openapi.json. JSON errors for bad input, a bearer token when set, a bound
 * on concurrent casts (429 + Retry-After beyond it), SSE when the client asks for it, and a
 * client that disconnects cancels its cast.
 */
import type { FastifyInstance } from "fastify";
import type { LoadedSpell } from "../../spell/index.js";
import { cast, fail, type CastSlots } from "./cast-route.js";
import { guard } from "./guard.js";
import { INTENT_BODY, openApiDocument } from "./openapi.js";
import { Sessions } from "./sessions.js";
import { sessionLoom } from "./session-loom.js";

export interface ServeOptions {
  /** When set, every route needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** Casts running at once; more get 429 with Retry-After. Default 16. */
  maxConcurrent?: number | undefined;
  /** Origins whose browser pages may call the server (CORS); without a token, no other. */
  allowOrigins?: readonly string[] | undefined;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number | undefined;
}

export async function createHttpServer(
  loaded: LoadedSpell,
  options: ServeOptions = {},
): Promise<FastifyInstance> {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ bodyLimit: options.bodyLimit ?? 1024 * 1024, logger: false });
  const cantrip = loaded.cantrip!;
  const sessions = new Sessions(cantrip);
  const state: CastSlots = { running: 0, limit: options.maxConcurrent ?? 16 };
  const secrets = loaded.redactor;
  const redact = (t: string) => loaded.redactor.redact(t);
  guard(app, options);
  app.setErrorHandler(
    (err: { statusCode?: number; code?: string; message: string }, _req, reply) => {
      const status = err.statusCode ?? 500;
      void fail(
        reply,
        status,
        status === 413 ? "body_too_large" : (err.code ?? "bad_request"),
        redact(err.message),
      );
    },
  );
  app.addHook("onClose", () => sessions.close());
  app.get("/healthz", () => ({ ok: true, running: state.running }));
  app.get("/openapi.json", () => openApiDocument(loaded.name));
  const body = { schema: { body: INTENT_BODY } };
  app.post<{ Body: { intent: string } }>("/cast", body, (req, reply) =>
    cast(req, reply, state, secrets, (onEvent, signal) =>
      cantrip.cast(req.body.intent, { signal, ...(onEvent ? { onEvent } : {}) }),
    ),
  );
  app.post("/sessions", async (_req, reply) => reply.code(201).send({ id: await sessions.open() }));
  app.post<{ Body: { intent: string }; Params: { id: string } }>(
    "/sessions/:id/send",
    body,
    async (req, reply) => {
      if (!(await sessions.has(req.params.id)))
        return fail(reply, 404, "unknown_session", `no session ${req.params.id}`);
      return cast(req, reply, state, secrets, (onEvent) =>
        sessions.send(req.params.id, req.body.intent, onEvent),
      );
    },
  );
  app.get<{ Params: { id: string } }>("/sessions/:id/loom", async (req, reply) => {
    const entityId = (await sessions.has(req.params.id))
      ? sessions.entityId(req.params.id)
      : undefined;
    if (!entityId) return fail(reply, 404, "unknown_session", `no session ${req.params.id}`);
    return reply.type("application/x-ndjson").send(sessionLoom(cantrip.loom, entityId, redact));
  });
  return app;
}
