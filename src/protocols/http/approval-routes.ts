/**
 * Approvals over HTTP (issue 25). A session's entity asks through its session: the question is
 * an `approval` event on the SSE stream of the send that is running, and is listed by
 * GET /sessions/ID/approvals; POST /sessions/ID/approvals/APPROVAL_ID {"allow": true|false}
 * answers it. An approval id is looked up in its own session only, so another session's id is
 * unknown here (404). No answer before `approval_timeout_ms`, a client that goes away (the send
 * is cancelled) or a malformed answer deny the call.
 */
import type { FastifyInstance } from "fastify";
import type { Approver, ApprovalRequest } from "../../core/approval.js";
import type { CantripEvent } from "../../core/events.js";
import { fail, type Secrets } from "./cast-route.js";
import type { Sessions } from "./sessions.js";

interface Pending {
  question: ApprovalQuestion;
  resolve: (answer: { allow: boolean; by: "http"; reason?: string }) => void;
}

/** A question as a client sees it: the arguments redacted. */
export interface ApprovalQuestion {
  type: "approval";
  id: string;
  gate: string;
  arguments: string;
  rule: string;
  entityId: string;
  depth: number;
}

/** The open questions of every session, each under its own session only. */
export class PendingApprovals {
  private readonly bySession = new Map<string, Map<string, Pending>>();
  private readonly watchers = new Map<string, Set<(e: CantripEvent) => void>>();

  constructor(private readonly secrets: Secrets) {}

  /** The approver of one session's entity. */
  approver(sessionId: string): Approver {
    return (request) => this.ask(sessionId, request);
  }

  /** Streams this session's questions to a send's SSE listener while it runs; returns the unsubscribe. */
  watch(sessionId: string, listener: (e: CantripEvent) => void): () => void {
    const set = this.watchers.get(sessionId) ?? new Set();
    this.watchers.set(sessionId, set);
    set.add(listener);
    for (const p of this.bySession.get(sessionId)?.values() ?? []) listener(event(p.question));
    return () => {
      set.delete(listener);
      if (!set.size) this.watchers.delete(sessionId);
    };
  }

  list(sessionId: string): ApprovalQuestion[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])].map((p) => p.question);
  }

  /** Answers a question of this session: unknown when it is not open here (another session's). */
  answer(sessionId: string, id: string, body: unknown): "answered" | "malformed" | "unknown" {
    const pending = this.bySession.get(sessionId)?.get(id);
    if (!pending) return "unknown";
    const allow = (body as { allow?: unknown } | null)?.allow;
    if (typeof allow !== "boolean") {
      pending.resolve({ allow: false, by: "http", reason: "malformed answer" });
      return "malformed";
    }
    pending.resolve(
      allow ? { allow, by: "http" } : { allow, by: "http", reason: "denied by the user" },
    );
    return "answered";
  }

  private ask(sessionId: string, request: ApprovalRequest) {
    const question: ApprovalQuestion = {
      type: "approval",
      id: request.id,
      gate: request.gate,
      arguments: this.secrets.redact(request.arguments),
      rule: request.rule,
      entityId: request.entityId,
      depth: request.depth,
    };
    const open = this.bySession.get(sessionId) ?? new Map<string, Pending>();
    this.bySession.set(sessionId, open);
    return new Promise<{ allow: boolean; by: "http"; reason?: string }>((resolve) => {
      const done = () => {
        open.delete(request.id);
        if (!open.size) this.bySession.delete(sessionId);
      };
      // Withdrawn (timed out, cancelled): the question is no longer open; the circle decides.
      request.signal.addEventListener("abort", done, { once: true });
      open.set(request.id, {
        question,
        resolve: (answer) => {
          done();
          resolve(answer);
        },
      });
      for (const w of this.watchers.get(sessionId) ?? []) w(event(question));
    });
  }
}

const event = (q: ApprovalQuestion): CantripEvent => q as unknown as CantripEvent;

export function approvalRoutes(
  app: FastifyInstance,
  sessions: Sessions,
  pending: PendingApprovals,
): void {
  app.get<{ Params: { id: string } }>("/sessions/:id/approvals", async (req, reply) => {
    if (!(await sessions.entityOf(req.params.id)))
      return fail(reply, 404, "unknown_session", `no session ${req.params.id}`);
    return { approvals: pending.list(req.params.id) };
  });
  app.post<{ Params: { id: string; approval: string }; Body: unknown }>(
    "/sessions/:id/approvals/:approval",
    // No body schema: anything but a boolean `allow` must reach the question and deny it.
    (req, reply) => {
      const outcome = pending.answer(req.params.id, req.params.approval, req.body);
      if (outcome === "unknown")
        return fail(
          reply,
          404,
          "unknown_approval",
          `no open approval ${req.params.approval} in session ${req.params.id}`,
        );
      if (outcome === "malformed")
        return fail(
          reply,
          400,
          "malformed_answer",
          'answer with {"allow": true|false}; the call was denied',
        );
      return reply.code(204).send();
    },
  );
}
