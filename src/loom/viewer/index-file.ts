/**
 * What `spell view` knows of a loom file (loom/viewer/index-base.ts): one small entry per turn (where its
 * line lies in the file, and the few fields a list or a tree row shows), the entities, folds and
 * rewards. The
 * file is read once, then only the bytes appended since (a running cast's loom grows on the
 * page); a turn's full record is read back from its line when it is opened. Nothing of a turn's
 * text is held but its first intent, so a 100,000-turn loom is indexed in little memory. A
 * server looks (`look`) rather than refreshes: a big file is read in the background, so the
 * page opens before the last line is read and fills in as the rest is.
 *
 * The file is opened anew at each look, by `open` when given: `spell view` passes one that
 * walks from the served folder's handle (so a folder above the loom swapped for a link leads
 * nowhere); alone, the path is opened without following a link at its last name.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { decodeRecord } from "../jsonl/index.js";
import type { Turn } from "../records/index.js";
import { ViewerIndexBase, type ViewerIndex } from "./index-base.js";

export type { ViewerEntity, ViewerTurn } from "./entity.js";
export type { ViewerIndex } from "./index-base.js";

const CHUNK = 4 << 20;
/** At most this much appended is read within a look; more is read in the background. */
const LOOK_NOW_BYTES = 1 << 20;
/** What the background reading reads at a time, and how long it holds the event loop. */
const STEP_BYTES = 256 << 10;
const SLICE_MS = 12;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class LoomViewerIndex extends ViewerIndexBase implements ViewerIndex {
  private size = 0;
  private pending = Buffer.alloc(0);
  /** The background reading a look started, while it runs. */
  private background: Promise<void> | undefined;

  constructor(
    readonly path: string,
    /** Opens the loom for reading (a file descriptor the index closes). */
    private readonly open: () => number = () =>
      openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW),
  ) {
    super();
  }

  /** Reads what was appended since the last look; a file that shrank is read again whole. */
  refresh(): boolean {
    let changed = false;
    for (let more = true; more;) {
      const step = this.step(CHUNK);
      changed ||= step.changed;
      more = step.more;
    }
    return changed;
  }

  /** True while a look left bytes to be read in the background (`look`). */
  get reading(): boolean {
    return this.background !== undefined;
  }

  /** Resolves once the bytes a look left to the background are read (at once when none are). */
  whenRead(): Promise<void> {
    return this.background ?? Promise.resolve();
  }

  /**
   * Looks at the file as a server does at each request: a little appended (a running cast's
   * turns) is read now; much (a big loom opened, or grown by megabytes) is read in the
   * background, a slice of the event loop at a time, and the index answers meanwhile from what
   * is read so far (its version grows with each slice, so the page asks again). Throws, as
   * `refresh` does, when the file cannot be opened; a file that fails in the background stops
   * the reading there (the next look throws).
   */
  look(): void {
    if (this.background) return; // the background reading goes on to the end of the file
    const fd = this.open();
    let size: number;
    try {
      size = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
    if (size >= this.size && size - this.size <= LOOK_NOW_BYTES) {
      this.refresh();
      return;
    }
    this.background = this.readInBackground().finally(() => (this.background = undefined));
  }

  private async readInBackground(): Promise<void> {
    for (let more = true; more;) {
      await nextTurn(); // the caller answers first: a look never reads much before it returns
      const until = performance.now() + SLICE_MS;
      try {
        do more = this.step(STEP_BYTES).more;
        while (more && performance.now() < until);
      } catch {
        return; // gone, or no longer a file inside: the next look says so
      }
    }
  }

  /**
   * Reads at most `max` bytes of what was appended since the last look (a file that shrank is
   * read again from its start): whether the index changed, and whether more is left to read.
   */
  private step(max: number): { changed: boolean; more: boolean } {
    const fd = this.open();
    try {
      const size = fstatSync(fd).size;
      if (size < this.size) this.reset();
      if (size === this.size) return { changed: false, more: false };
      const want = Math.min(max, size - this.size);
      const buf = Buffer.alloc(want);
      let got = 0;
      while (got < want) {
        const n = readSync(fd, buf, got, want - got, this.size + got);
        if (n <= 0) break;
        got += n;
      }
      if (got === 0) return { changed: false, more: false };
      this.take(buf.subarray(0, got), this.size - this.pending.length);
      this.size += got;
      this.version++;
      return { changed: true, more: this.size < size };
    } finally {
      closeSync(fd);
    }
  }

  /** The full record of a turn, read back from its line (with a reward given later). */
  readTurn(id: string): Turn | null {
    const t = this.turns.get(id);
    if (!t) return null;
    const fd = this.open();
    try {
      const buf = Buffer.alloc(t.len);
      readSync(fd, buf, 0, t.len, t.off);
      const record = decodeRecord(JSON.parse(buf.toString("utf8")));
      if (record?.type !== "turn") return null;
      const { type: _type, ...turn } = record;
      return { ...turn, reward: t.reward };
    } finally {
      closeSync(fd);
    }
  }

  protected override reset(): void {
    super.reset();
    this.size = 0;
    this.pending = Buffer.alloc(0);
  }

  /** Complete lines of `chunk` (after what was pending) are read; a partial last line waits. */
  private take(chunk: Buffer, start: number): void {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    for (let nl = buf.indexOf(10, at); nl >= 0; nl = buf.indexOf(10, at)) {
      if (nl > at) this.line(buf, at, nl, start + at);
      at = nl + 1;
    }
    this.pending = Buffer.from(buf.subarray(at));
  }

  private line(buf: Buffer, from: number, to: number, off: number): void {
    let value: unknown;
    try {
      value = JSON.parse(buf.toString("utf8", from, to));
    } catch {
      return; // a torn piece (a killed writer): the records around it are intact
    }
    const record = decodeRecord(value);
    if (record) this.record(record, off, to - from);
  }
}
