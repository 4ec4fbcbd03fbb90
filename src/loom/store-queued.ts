import type { LoomRecord, Turn } from "./turn.js";
import type { LoomStore, StoredRecord } from "./loom-store.js";
import type { RecordStore } from "./store.js";

/**
 * The engine's write path to an asynchronous store (PostgreSQL): a `RecordStore` whose appends
 * are queued, in order, onto a `LoomStore`. The loop awaits `stored()` once per turn (LOOM-1:
 * the turn is on the store before the next query begins), so a refused (`loom_fenced`) or failed
 * write stops the cast with that error before the next LLM call. The first failure is kept:
 * nothing after it is sent, and every later `stored()` rejects with it.
 *
 * The loom indexes its own appends (`readsBack` false); `records` seeds it with what was read
 * from the store before the cast (an entity to resume), so nothing is read synchronously.
 */
export class QueuedRecordStore implements RecordStore {
  readonly readsBack = false;
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;
  private failure: Error | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    readonly target: LoomStore,
    private readonly seed: readonly LoomRecord[] = [],
  ) {}

  get location(): string {
    return this.target.location;
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
   * Resolves once every record appended so far is stored; rejects with the first failure.
   * Undefined when nothing is waiting (no tick spent).
   */
  stored(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    return this.pending === 0 ? undefined : this.tail.then(() => this.stored());
  }

  /** Stores what is queued, then closes the store; never rejects (a failure was reported). */
  close(): Promise<void> {
    this.closing ??= this.tail.then(() => this.target.close()).catch(() => undefined);
    return this.closing;
  }

  private send(record: StoredRecord): void {
    this.pending++;
    this.tail = this.tail.then(async () => {
      try {
        if (!this.failure) await this.target.append(record);
      } catch (err) {
        this.failure = err instanceof Error ? err : new Error(String(err));
      } finally {
        this.pending--;
      }
    });
  }
}
