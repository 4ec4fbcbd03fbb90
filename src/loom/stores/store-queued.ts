import type { LoomRecord, Turn } from "../records/index.js";
import type { LoomStore, StoredRecord } from "./loom-store.js";
import type { RecordStore } from "./store.js";

/**
 * The engine's write path to an asynchronous store (PostgreSQL): a `RecordStore` whose appends
 * are queued, in order, onto a `LoomStore`. The loop awaits `stored()` once per turn (LOOM-1:
 * the turn is on the store before the next query begins), so a refused (`loom_fenced`) or failed
 * write stops the cast with that error before the next LLM call. A failure belongs to the entity
 * whose record failed (its `entity_id`, a reward its turn's): nothing more of that entity is sent
 * (not the reward a fenced cast's assessment puts on its last turn), and its later
 * `stored(entityId)` rejects with it, while the other entities' casts on the same store go on
 * (a worker whose late turn of one cast was fenced keeps taking casts). A record of no entity
 * (an identity) that fails is reported once, to the next `stored()` that asks.
 *
 * The loom indexes its own appends (`readsBack` false); `records` seeds it with what was read
 * from the store before the cast (an entity to resume), so nothing is read synchronously.
 */
export class QueuedRecordStore implements RecordStore {
  readonly readsBack = false;
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  /** Each turn's entity, so a reward on a turn goes with its entity (the loom keeps as much). */
  private readonly entityOf = new Map<string, string>();
  /** The first failure of each entity ("" for records of no entity, reported once). */
  private readonly failures = new Map<string, Error>();
  private closing: Promise<void> | null = null;

  constructor(
    readonly target: LoomStore,
    private readonly seed: readonly LoomRecord[] = [],
  ) {}

  get location(): string {
    return this.target.location;
  }

  /** The store other processes write too: an entity to continue is read from it. */
  get shared(): LoomStore {
    return this.target;
  }

  append(record: LoomRecord): void {
    if (record.type === "loom" || record.type === "torn") return; // a file's own marks
    this.send(record);
  }

  appendTurn(turn: Turn): void {
    this.send({ type: "turn", ...turn });
  }

  load(): LoomRecord[] {
    return [...this.seed];
  }

  /**
   * Resolves once every record appended so far is stored; rejects with the entity's first
   * failure (or a failed record of no entity). Undefined when nothing is waiting (no tick spent).
   * Without an entity: any failure.
   */
  stored(entityId?: string): Promise<void> | undefined {
    const failure = this.failureOf(entityId);
    if (failure) return Promise.reject(failure);
    return this.pending === 0 ? undefined : this.tail.then(() => this.stored(entityId));
  }

  private failureOf(entityId: string | undefined): Error | undefined {
    if (entityId === undefined) return this.failures.values().next().value;
    const shared = this.failures.get("");
    if (shared) this.failures.delete(""); // told once
    return this.failures.get(entityId) ?? shared;
  }

  /** Stores what is queued, then closes the store; never rejects (a failure was reported). */
  close(): Promise<void> {
    this.closing ??= this.tail.then(() => this.target.close()).catch(() => undefined);
    return this.closing;
  }

  private entityFor(record: StoredRecord): string {
    if (record.type === "turn") this.entityOf.set(record.id, record.entity_id);
    if ("entity_id" in record) return record.entity_id;
    return record.type === "reward" ? (this.entityOf.get(record.turn_id) ?? "") : "";
  }

  private send(record: StoredRecord): void {
    const entity = this.entityFor(record);
    this.pending++;
    this.tail = this.tail.then(async () => {
      try {
        if (!this.failures.has(entity) || entity === "") await this.target.append(record);
      } catch (err) {
        if (!this.failures.has(entity))
          this.failures.set(entity, err instanceof Error ? err : new Error(String(err)));
      } finally {
        this.pending--;
      }
    });
  }
}
