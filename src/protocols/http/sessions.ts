import type { Entity } from "../../core/entity.js";
import { newId } from "../../core/ids.js";
import type { Loom } from "../../loom/loom.js";
import type { Cantrip } from "../../core/cantrip.js";
import type { CastResult } from "../../core/result.js";
import type { EventListener } from "../../core/events.js";

/** Summoned entities by session id; a session's sends run one at a time, in order. */
export class Sessions {
  private readonly byId = new Map<string, { entity: Entity<Loom>; queue: Promise<unknown> }>();

  constructor(private readonly cantrip: Cantrip<Loom>) {}

  open(): string {
    const id = newId("sess");
    // Events reach whoever sends: each send subscribes its own listener.
    this.byId.set(id, { entity: this.cantrip.summon(), queue: Promise.resolve() });
    return id;
  }

  has(id: string): boolean {
    return this.byId.has(id);
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
