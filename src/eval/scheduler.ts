/**
 * One scheduler for every cast of an eval run: at most `concurrency` casts at once, at most a
 * provider's own limit per provider, and one pause per provider that a 429 sets (for its
 * Retry-After, else a backoff): every query to that provider waits it out, so a rate limit slows
 * the whole run instead of failing cases. `stop()` (Ctrl-C) starts no new cast; running ones
 * finish.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/**
 * A pause kept where other processes see it (queue/pauses.ts: a Redis key per provider), so a
 * 429 met by one `spell worker` holds every worker's queries to that provider.
 */
export interface SharedPauses {
  pause(provider: string, ms: number): void;
  /** When the provider's shared pause ends (epoch ms; 0 or past: none). */
  until(provider: string): Promise<number>;
  /**
   * Takes a slot of the provider's steady rate shared by every worker (`spell worker --rate`):
   * `waitMs` 0 when one was taken (then `done`, when given, is called once the query ended:
   * the slot counts until a window after it), else how long (ms) before asking again. Absent:
   * no shared rate.
   */
  take?(provider: string): Promise<{ waitMs: number; done?: () => void }>;
}

/** Called once a query that `ready()` let go has ended (its answer or its error came back). */
export type QueryDone = () => void;

/** Where one provider's queries wait while a 429 holds them back. */
export class ProviderGate {
  private until = 0;
  /** 429s seen: the run's report says how often it was slowed. */
  rateLimited = 0;
  waitedMs = 0;

  constructor(
    readonly name: string,
    private readonly shared?: SharedPauses,
  ) {}

  /** Holds every query for `ms` from now (the longest pause asked wins). */
  pause(ms: number): void {
    this.rateLimited++;
    this.until = Math.max(this.until, Date.now() + ms);
    this.shared?.pause(this.name, ms);
  }

  /**
   * Waits out the provider's pause, then for a slot of its shared steady rate (if any); the
   * query then goes, and calls what this returns when it has ended.
   */
  async ready(signal?: AbortSignal): Promise<QueryDone> {
    for (;;) {
      if (this.shared) this.until = Math.max(this.until, await this.shared.until(this.name));
      let wait = this.until - Date.now();
      if (wait <= 0) {
        const slot = (await this.shared?.take?.(this.name)) ?? { waitMs: 0 };
        if (slot.waitMs <= 0) return slot.done ?? (() => {});
        wait = slot.waitMs;
      }
      this.waitedMs += wait;
      await sleep(wait, signal);
    }
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

export interface Job {
  provider: string;
  run(): Promise<void>;
}

export class Scheduler {
  private readonly all: Limiter;
  private readonly perProvider = new Map<string, Limiter>();
  private readonly gates = new Map<string, ProviderGate>();
  private stopped = false;
  /** Set by a queue worker: pauses shared with the other workers. */
  shared: SharedPauses | undefined;

  constructor(
    readonly concurrency: number,
    private readonly providerLimits: Readonly<Record<string, number>> = {},
  ) {
    this.all = new Limiter(concurrency);
  }

  gate(provider: string): ProviderGate {
    let g = this.gates.get(provider);
    if (!g) this.gates.set(provider, (g = new ProviderGate(provider, this.shared)));
    return g;
  }

  /** 429s met over every provider. */
  rateLimited(): number {
    return [...this.gates.values()].reduce((n, g) => n + g.rateLimited, 0);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** No job starts after this; the ones running finish. */
  stop(): void {
    this.stopped = true;
  }

  /** Runs the jobs in order under the limits; resolves when every started job has ended. */
  async runAll(jobs: Iterable<Job>): Promise<void> {
    const running = new Set<Promise<void>>();
    for (const job of jobs) {
      await this.all.acquire();
      const own = this.limiter(job.provider);
      await own.acquire();
      if (this.stopped) {
        own.release();
        this.all.release();
        break;
      }
      const p = job.run().finally(() => {
        own.release();
        this.all.release();
        running.delete(p);
      });
      running.add(p);
    }
    await Promise.all(running);
  }

  private limiter(provider: string): Limiter {
    let l = this.perProvider.get(provider);
    if (!l)
      this.perProvider.set(
        provider,
        (l = new Limiter(Math.min(this.concurrency, this.providerLimits[provider] ?? Infinity))),
      );
    return l;
  }
}
