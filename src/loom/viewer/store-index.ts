/**
 * What `spell view` knows of a loom read through its store's contract (a database: loom-store.ts
 * `recordPages`), as loom/viewer/index-file.ts knows a file: the loom is read a page at a time in the
 * background, the index answering meanwhile from what is read so far; each later look reads only
 * the records stored since (a running cast's turns appear on the page as they land). A turn's full
 * record is asked of the store when it is opened.
 */
import type { LoomReadStore } from "../stores/index.js";
import type { Turn } from "../records/index.js";
import { ViewerIndexBase, type ViewerIndex } from "./index-base.js";

export class StoreViewerIndex extends ViewerIndexBase implements ViewerIndex {
  /** Where the next read starts: after the last record read. */
  private next = 0;
  /** The reading a look started, while it runs… */
  private background: Promise<void> | undefined;
  /** …and its first page (a look waits for it: the page opens on what that page holds). */
  private firstPage: Promise<void> | undefined;

  constructor(readonly store: LoomReadStore) {
    super();
  }

  get reading(): boolean {
    return this.background !== undefined;
  }

  whenRead(): Promise<void> {
    return this.background ?? Promise.resolve();
  }

  /**
   * Reads what was stored since the last read: resolves once its first page is indexed (the
   * rest is read in the background); rejects when the store cannot be read. A look while a read
   * runs waits for that read's first page, and starts nothing more.
   */
  look(): Promise<void> {
    if (this.firstPage) return this.firstPage;
    let pageIn!: () => void;
    let failed!: (err: unknown) => void;
    const first = new Promise<void>((resolve, reject) => {
      pageIn = resolve;
      failed = reject;
    });
    this.firstPage = first;
    this.background = this.read(pageIn)
      .catch((err: unknown) => failed(err)) // after the first page: the next look says so
      .finally(() => {
        pageIn();
        this.background = undefined;
        this.firstPage = undefined;
      });
    return first;
  }

  /** Everything stored so far, indexed (`spell loom view`'s page). */
  async readAll(): Promise<void> {
    await this.look();
    await this.whenRead();
  }

  async readTurn(id: string): Promise<Turn | null> {
    const t = this.turns.get(id);
    if (!t) return null;
    const turn = await this.store.turn(id);
    return turn ? { ...turn, reward: t.reward } : null;
  }

  private async read(pageIn: () => void): Promise<void> {
    for await (const page of this.store.recordPages(this.next, { settled: true })) {
      for (const record of page.records) this.record(record, 0, 0);
      this.next = page.next;
      if (page.records.length > 0) this.version++;
      pageIn();
    }
  }
}
