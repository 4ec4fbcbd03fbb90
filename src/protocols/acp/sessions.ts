import type { Cantrip } from "../../core/cantrip.js";
import type { Entity } from "../../core/entity.js";
import type { EventListener } from "../../core/events.js";
import type { CastResult } from "../../core/result.js";
import type { Loom } from "../../loom/core/index.js";
import type { AcpAsker } from "./permission.js";

/** One ACP session: a summoned entity (PROD-7: its sends accumulate), and the prompt running. */
export interface AcpSession {
  readonly id: string;
  readonly cwd: string;
  readonly entity: Entity<Loom>;
  readonly cantrip: Cantrip<Loom>;
  /** Aborts the running prompt (session/cancel); undefined while idle. */
  running: AbortController | undefined;
  /** Prompts of one session run one after the other, in the order they came. */
  queue: Promise<unknown>;
  /** Asks the editor about approvals (issue 25) while a prompt of the session runs. */
  asker?: AcpAsker | undefined;
}

/**
 * The sessions of one ACP connection, by id. A session's id is its entity's id: the loom names
 * the entity, so a later process can find the session's turns (session/load).
 */
export class AcpSessions {
  private readonly byId = new Map<string, AcpSession>();

  add(cwd: string, cantrip: Cantrip<Loom>, entity: Entity<Loom>, asker?: AcpAsker): AcpSession {
    const session: AcpSession = {
      id: entity.id,
      cwd,
      entity,
      cantrip,
      running: undefined,
      queue: Promise.resolve(),
      asker,
    };
    if (asker) asker.sessionId = entity.id;
    this.byId.set(session.id, session);
    return session;
  }

  get(id: string): AcpSession | undefined {
    return this.byId.get(id);
  }

  /** Runs `intent` after the session's earlier prompts; session/cancel aborts it. */
  prompt(session: AcpSession, intent: string, onEvent: EventListener): Promise<CastResult<Loom>> {
    const run = session.queue.then(async () => {
      const controller = new AbortController();
      session.running = controller;
      const off = session.entity.bus.on(onEvent);
      try {
        return await session.entity.send(intent, { signal: controller.signal });
      } finally {
        off();
        if (session.running === controller) session.running = undefined;
      }
    });
    session.queue = run.catch(() => undefined);
    return run;
  }

  /** session/cancel: the running prompt stops; its turns so far stay in the loom. */
  cancel(id: string): boolean {
    const session = this.byId.get(id);
    if (!session?.running) return false;
    session.running.abort("cancelled");
    return true;
  }

  close(): void {
    for (const s of this.byId.values()) {
      s.running?.abort("cancelled");
      s.entity.dispose();
    }
    this.byId.clear();
  }
}
