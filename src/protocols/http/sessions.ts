import type { Entity } from "../../core/entity.js";
import type * as Crypto from "node:crypto";
import { lazyBuiltin } from "../../core/builtin.js";
import type { Loom } from "../../loom/loom.js";
import { recordSession, sessionEntity } from "../../loom/entity-keeper.js";
import type { Cantrip } from "../../core/cantrip.js";
import type { CastResult } from "../../core/result.js";
import type { EventListener } from "../../core/events.js";

const PROTOCOL = "http";
const crypto = lazyBuiltin<typeof Crypto>("node:crypto");

/**
 * A session's id is the capability to read and speak to its entity: 128 random bits, not an
 * entity or turn id (those are a process prefix and a counter — one gives away the others).
 */
export const sessionId = (): string => `sess_${crypto().randomBytes(16).toString("base64url")}`;

/**
 * Summoned entities by session id; a session's sends run one at a time, in order. With a loom
 * file, each session is recorded in the state file beside it (which entity it speaks to), so a
 * server started again on the same loom continues a session it has not seen: the entity is
 * summoned again by its id, its turns back in its context.
 */
export class Sessions {
  private readonly byId = new Map<string, { entity: Entity<Loom>; queue: Promise<unknown> }>();

  constructor(private readonly cantrip: Cantrip<Loom>) {}

  async open(): Promise<string> {
    const id = sessionId();
    // Events reach whoever sends: each send subscribes its own listener.
    const entity = this.cantrip.summon();
    this.byId.set(id, { entity, queue: Promise.resolve() });
    const file = this.cantrip.loom.store.file;
    if (file !== undefined) {
      await entity.ready(); // registered beside the loom before the session is recorded
      await recordSession(file, PROTOCOL, id, entity.id);
    }
    return id;
  }

  /** True when the session is open here, or was recorded beside the loom (then it is reopened). */
  async has(id: string): Promise<boolean> {
    if (this.byId.has(id)) return true;
    const file = this.cantrip.loom.store.file;
    if (file === undefined || !/^sess_[A-Za-z0-9_-]+$/.test(id)) return false;
    const entityId = await sessionEntity(file, PROTOCOL, id);
    if (entityId === undefined) return false;
    if (!this.byId.has(id))
      this.byId.set(id, {
        entity: this.cantrip.summon({ entity: entityId }),
        queue: Promise.resolve(),
      });
    return true;
  }

  entityId(id: string): string | undefined {
    return this.byId.get(id)?.entity.id;
  }

  /** Runs `intent` after the session's earlier sends (ENTITY-5: it sees them all). */
  send(id: string, intent: string, onEvent: EventListener | undefined): Promise<CastResult<Loom>> {
    const session = this.byId.get(id)!;
    const run = session.queue.then(async () => {
      const off = onEvent ? session.entity.bus.on(onEvent) : undefined;
      try {
        return await session.entity.send(intent);
      } finally {
        off?.();
      }
    });
    session.queue = run.catch(() => undefined);
    return run;
  }

  close(): void {
    for (const { entity } of this.byId.values()) entity.dispose();
    this.byId.clear();
  }
}
