import type { Entity } from "../../core/entity.js";
import type * as Crypto from "node:crypto";
import { lazyBuiltin } from "../../core/builtin.js";
import type { Loom } from "../../loom/core/index.js";
import { recordSession, sessionEntity } from "../../loom/entities/index.js";
import type { Cantrip } from "../../core/cantrip.js";
import type { CastResult } from "../../core/result.js";
import type { EventListener } from "../../core/events.js";
import type { Approver } from "../../core/approval.js";
import { sessionCantrip } from "./session-cantrip.js";

const PROTOCOL = "http";
const crypto = lazyBuiltin<typeof Crypto>("node:crypto");

/**
 * A session's id is the capability to read and speak to its entity: 128 random bits, not an
 * entity or turn id (those are a process prefix and a counter — one gives away the others).
 */
export const sessionId = (): string => `sess_${crypto().randomBytes(16).toString("base64url")}`;

export interface SessionLimits {
  /** Sessions open at once; past it, opening (or reopening) one fails with SessionsFull. */
  maxSessions: number;
  /** A session nobody used for this long is let go (its entity disposed). */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 1000, idleMs: 15 * 60_000 };

/** Every session slot is taken (by sessions not yet idle long enough to expire). */
export class SessionsFull extends Error {
  constructor(readonly limits: SessionLimits) {
    super(
      `${limits.maxSessions} sessions are open (the limit, --max-sessions): close one ` +
        `(DELETE /sessions/ID) or retry when an idle one expires (after ${Math.round(limits.idleMs / 1000)} s idle)`,
    );
  }
}

interface Session {
  entity: Entity<Loom>;
  queue: Promise<unknown>;
  /** Sends running or waiting: a busy session never expires. */
  busy: number;
  lastUsed: number;
}

/**
 * Summoned entities by session id; a session's sends run one at a time, in order. With a loom
 * file, each session is recorded in the state file beside it (which entity it speaks to), so a
 * server started again on the same loom continues a session it has not seen: the entity is
 * summoned again by its id, its turns back in its context. Memory is bounded by the sessions
 * open, not by those ever served: at most `maxSessions` at once, and one idle for `idleMs` is
 * let go (with a loom file it comes back, as after a restart, when it is used again).
 */
export class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly cantrip: Cantrip<Loom>,
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    /** Who answers a session's approval questions (issue 25): its HTTP client. */
    private readonly approverFor?: (sessionId: string) => Approver,
  ) {
    const every = Math.max(20, Math.min(limits.idleMs / 4, 30_000));
    this.timer = setInterval(() => this.expire(), every);
    this.timer.unref();
  }

  get size(): number {
    return this.byId.size;
  }

  async open(): Promise<string> {
    const id = sessionId();
    // Events reach whoever sends: each send subscribes its own listener.
    const entity = this.add(id, () => sessionCantrip(this.cantrip).summon(this.asking(id)));
    const file = this.cantrip.loom.store.file;
    if (file !== undefined) {
      await entity.ready(); // registered beside the loom before the session is recorded
      await recordSession(file, PROTOCOL, id, entity.id);
    }
    return id;
  }

  /** True when the session is open here, or was recorded beside the loom (then it is reopened). */
  async has(id: string): Promise<boolean> {
    const session = this.byId.get(id);
    if (session) {
      session.lastUsed = Date.now();
      return true;
    }
    const file = this.cantrip.loom.store.file;
    if (file === undefined || !/^sess_[A-Za-z0-9_-]+$/.test(id)) return false;
    const entityId = await sessionEntity(file, PROTOCOL, id);
    if (entityId === undefined) return false;
    if (!this.byId.has(id))
      this.add(id, () =>
        sessionCantrip(this.cantrip).summon({ entity: entityId, ...this.asking(id) }),
      );
    return true;
  }

  /** The entity a session speaks to (open here or recorded beside the loom), without reopening it. */
  async entityOf(id: string): Promise<string | undefined> {
    const session = this.byId.get(id);
    if (session) return session.entity.id;
    const file = this.cantrip.loom.store.file;
    if (file === undefined || !/^sess_[A-Za-z0-9_-]+$/.test(id)) return undefined;
    return sessionEntity(file, PROTOCOL, id);
  }

  /** Runs `intent` after the session's earlier sends (ENTITY-5: it sees them all). */
  send(
    id: string,
    intent: string,
    onEvent: EventListener | undefined,
    signal: AbortSignal,
  ): Promise<CastResult<Loom>> {
    const session = this.byId.get(id)!;
    session.busy++;
    const run = session.queue.then(async () => {
      const off = onEvent ? session.entity.bus.on(onEvent) : undefined;
      try {
        return await session.entity.send(intent, { signal });
      } finally {
        off?.();
      }
    });
    session.queue = run
      .catch(() => undefined)
      .finally(() => {
        session.busy--;
        session.lastUsed = Date.now();
      });
    return run;
  }

  /** Lets a session go now, as idle expiry does (not while a send runs). */
  release(id: string): "released" | "busy" | "unknown" {
    const session = this.byId.get(id);
    if (!session) return "unknown";
    if (session.busy > 0) return "busy";
    session.entity.dispose();
    this.byId.delete(id);
    return "released";
  }

  close(): void {
    clearInterval(this.timer);
    for (const { entity } of this.byId.values()) entity.dispose();
    this.byId.clear();
  }

  private asking(id: string): { onApproval?: Approver } {
    return this.approverFor ? { onApproval: this.approverFor(id) } : {};
  }

  private add(id: string, summon: () => Entity<Loom>): Entity<Loom> {
    if (this.byId.size >= this.limits.maxSessions) this.expire();
    if (this.byId.size >= this.limits.maxSessions) throw new SessionsFull(this.limits);
    const entity = summon();
    this.byId.set(id, { entity, queue: Promise.resolve(), busy: 0, lastUsed: Date.now() });
    return entity;
  }

  private expire(): void {
    const before = Date.now() - this.limits.idleMs;
    for (const [id, session] of this.byId)
      if (session.busy === 0 && session.lastUsed <= before) {
        session.entity.dispose();
        this.byId.delete(id);
      }
  }
}
