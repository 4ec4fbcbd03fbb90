import type { EntityLease } from "./loom-writer.js";

/**
 * An entity's hold on a loom that keeps entities (registered there, and no other summon may
 * continue it meanwhile): taken once, by the entity's first `ready()` (entity.ts), updated with
 * the last turn after each send, let go when the entity is disposed. A hold refused (the entity
 * is held by another summon now, perhaps not later) is asked for again by the next `ready()`.
 */
export class EntityHold {
  private held: Promise<EntityLease> | null = null;
  private lease: EntityLease | null = null;
  private released = false;

  constructor(
    private readonly keeper: (entityId: string) => Promise<EntityLease>,
    private readonly entityId: string,
  ) {}

  /**
   * Takes the hold, once; `onHeld` runs with it taken (a resumed entity reads where its thread
   * ends now), and a hold whose `onHeld` throws is let go.
   */
  async take(onHeld: () => void): Promise<void> {
    this.held ??= this.hold(onHeld).catch((err: unknown) => {
      this.held = null; // held elsewhere now, perhaps not later: the next send asks again
      throw err;
    });
    await this.held;
  }

  private async hold(onHeld: () => void): Promise<EntityLease> {
    const lease = await this.keeper(this.entityId);
    if (this.released) return (lease.release(), lease);
    try {
      onHeld();
    } catch (err) {
      lease.release();
      throw err;
    }
    this.lease = lease;
    return lease;
  }

  /** After a send: the entity's last turn, for the loom's index of entities. */
  async update(lastTurnId: string | null): Promise<void> {
    await this.lease?.update(lastTurnId);
  }

  release(): void {
    this.released = true;
    this.lease?.release();
    this.lease = null;
  }
}
