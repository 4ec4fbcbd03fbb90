/** The session routes of `spell serve`: open, send, let go, and read a session's loom. */
import type { FastifyInstance } from "fastify";
import type { Cantrip } from "../../core/cantrip.js";
import type { Loom } from "../../loom/core/index.js";
import { cast, fail, type CastSlots, type Secrets } from "./cast-route.js";
import { INTENT_BODY } from "./openapi.js";
import { sessionLoom } from "./session-loom.js";
import type { Sessions } from "./sessions.js";
import type { PendingApprovals } from "./approval-routes.js";

export function sessionRoutes(
  app: FastifyInstance,
  sessions: Sessions,
  slots: CastSlots,
  cantrip: Cantrip<Loom>,
  secrets: Secrets,
  approvals?: PendingApprovals,
): void {
  const unknown = (id: string) => `no session ${id}`;
  app.post("/sessions", async (_req, reply) => reply.code(201).send({ id: await sessions.open() }));
  app.post<{ Body: { intent: string }; Params: { id: string } }>(
    "/sessions/:id/send",
    { schema: { body: INTENT_BODY } },
    async (req, reply) => {
      if (!(await sessions.has(req.params.id)))
        return fail(reply, 404, "unknown_session", unknown(req.params.id));
      return cast(req, reply, slots, secrets, (onEvent, signal) => {
        // Issue 25: the session's approval questions go out on this send's event stream.
        const off = onEvent && approvals?.watch(req.params.id, onEvent);
        return sessions
          .send(req.params.id, req.body.intent, onEvent, signal)
          .finally(() => off?.());
      });
    },
  );
  app.delete<{ Params: { id: string } }>("/sessions/:id", async (req, reply) => {
    const outcome = sessions.release(req.params.id);
    if (outcome === "unknown")
      return fail(reply, 404, "unknown_session", `${unknown(req.params.id)} is open here`);
    if (outcome === "busy")
      return fail(reply, 409, "session_busy", "a send of this session is running");
    return reply.code(204).send();
  });
  app.get<{ Params: { id: string } }>("/sessions/:id/loom", async (req, reply) => {
    const entityId = await sessions.entityOf(req.params.id);
    if (!entityId) return fail(reply, 404, "unknown_session", unknown(req.params.id));
    const text = sessionLoom(cantrip.loom, entityId, (t) => secrets.redact(t));
    return reply.type("application/x-ndjson").send(text);
  });
}
