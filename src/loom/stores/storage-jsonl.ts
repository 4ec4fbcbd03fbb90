import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { SystemError } from "../../core/errors.js";
import { isoNow } from "../../core/clock.js";
import { keepShapeOf } from "../../core/kept-shapes.js";
import { redactDeep } from "../../core/redact-stream.js";
import { turnJson } from "../jsonl/index.js";
import { readLoomFile, tornMessage } from "../jsonl/index.js";
import type { RecordStore } from "./store.js";
import { LOOM_FORMAT_VERSION, type LoomRecord, type Turn } from "../records/index.js";

export { readLoomFile, readRecords, type LoomReadResult } from "../jsonl/index.js";

export interface JsonlStoreOptions {
  /**
   * Flush every record to the disk before the append returns (a turn survives a power cut, not
   * only a killed process) at the cost of a disk round trip per record (bench/loom.bench.mjs).
   * Default false: the kernel's page cache, which a killed process cannot lose.
   */
  fsync?: boolean;
  /**
   * Applied to every string of every record (object keys included) before it is encoded
   * (PROD-8: the loom at rest holds no known secret — the run's redactor). Redacting before
   * encoding means no JSON escaping can carry a secret past it. Default: none.
   */
  redact?: ((text: string) => string) | undefined;
}

/**
 * The spec's reference format: one JSON record per line (LOOM-1: a turn is on disk before the
 * next begins). Several processes may append to one file at once (README, "The loom file"):
 * - the file is opened with O_APPEND and every record is written with ONE write() call, so
 *   records of different writers never interleave (the kernel appends each write whole);
 * - a writer killed in the middle of a write leaves a piece of a record without its newline;
 *   the next record of another writer is glued onto it. Readers take such a line apart
 *   (jsonl-lines.ts, splitGlued) and report the piece: no whole record is ever lost. Writers
 *   never repair a tear: a line that looks cut off may be another writer's record in flight;
 * - the file is created with its header in one step (a temporary file linked into place), so
 *   writers starting together write one header; it is created with mode 0600 (its folder,
 *   when made here, 0700): a loom is the owner's record.
 * One file descriptor stays open; opening a long history costs a look at its first line.
 */
export class JsonlStore implements RecordStore {
  private fd: number | null = null;
  readonly readsBack = true;
  /** What reading the file found worth saying (torn pieces skipped). */
  readonly warnings: string[] = [];
  /** Why this file may be read but not appended to (not a loom, or a newer format); else null. */
  readonly refusal: string | null;
  /** Version 2 records share big gate results (jsonl-codec.ts); a version-1 file keeps v1. */
  private readonly compact: boolean;

  get file(): string {
    return this.location;
  }

  /** See JsonlStoreOptions. */
  constructor(
    readonly location: string,
    private readonly options: JsonlStoreOptions = {},
  ) {
    const head = firstLine(location);
    this.refusal = head === null ? null : headerProblem(location, head);
    this.compact = head === null || headerVersion(head) >= 2;
    // One kept from the first on (core/kept-shapes.ts): a program may make a store per cast. Its
    // path names no file (opening "" fails at once): it reads nothing and is never written.
    keepShapeOf(JsonlStore, () => new JsonlStore(""));
  }

  load(): LoomRecord[] {
    if (!existsSync(this.location)) return [];
    const read = readLoomFile(this.location);
    for (const piece of read.torn) this.warnings.push(tornMessage(this.location, piece));
    return read.records;
  }

  append(record: LoomRecord): void {
    const { redact } = this.options;
    this.write(`${JSON.stringify(redact ? redactDeep(record, redact) : record)}\n`);
  }

  appendTurn(turn: Turn): void {
    const { redact } = this.options;
    this.writeJson(turnJson(redact ? redactDeep(turn, redact) : turn, this.compact));
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** One record, one write() (see the class comment). */
  private write(line: string): void {
    if (this.fd === null) this.open();
    let done = writeSync(this.fd!, line);
    const size = Buffer.byteLength(line);
    if (done !== size) {
      // A short write happens only on a full disk or a signal; finish the line regardless.
      const bytes = Buffer.from(line);
      while (done < bytes.length) done += writeSync(this.fd!, bytes, done);
    }
    if (this.options.fsync) fsyncSync(this.fd!);
  }

  /**
   * A record's JSON and its newline, one write() as `write`. A turn of the usual size is encoded
   * into a buffer kept for it, the newline after it: gluing "\n" to the JSON cost a copy of the
   * line, and writing that string a count of its bytes and another copy (issue 40).
   */
  private writeJson(json: string): void {
    if (json.length * 3 >= LINE_BUFFER_SIZE) return this.write(`${json}\n`);
    if (this.fd === null) this.open();
    const bytes = lineBuffer();
    // Three bytes of UTF-8 at most for each UTF-16 unit: the JSON fits, and its newline after it.
    const size = bytes.write(json, 0) + 1;
    bytes[size - 1] = 0x0a;
    let done = writeSync(this.fd!, bytes, 0, size);
    // A short write happens only on a full disk or a signal; finish the line regardless.
    while (done < size) done += writeSync(this.fd!, bytes, done, size - done);
    if (this.options.fsync) fsyncSync(this.fd!);
  }

  private open(): void {
    if (this.refusal) throw new SystemError("loom_refused", this.refusal);
    try {
      // Only the owner reads a loom (PROD-8): what the redactor does not know is still private.
      mkdirSync(dirname(this.location), { recursive: true, mode: 0o700 });
      createWithHeader(this.location);
      this.fd = openSync(this.location, "a", 0o600);
      // A file left empty by an older build: give it its header.
      if (fstatSync(this.fd).size === 0) writeSync(this.fd, headerLine());
    } catch (err) {
      throw new SystemError(
        "loom_io",
        `cannot open loom ${this.location}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}

/** The size of the buffer a line is encoded into: a line of longer JSON is written as a string. */
const LINE_BUFFER_SIZE = 64 * 1024;
let shared: Buffer | undefined;

/** One buffer for every store of the process: a line is encoded and written before the next. */
const lineBuffer = (): Buffer => (shared ??= Buffer.alloc(LINE_BUFFER_SIZE));

function headerLine(): string {
  const header: LoomRecord = { type: "loom", version: LOOM_FORMAT_VERSION, created: isoNow() };
  return `${JSON.stringify(header)}\n`;
}

let created = 0;

/** Creates the file holding its header, unless it exists: never two headers, never none. */
function createWithHeader(path: string): void {
  if (existsSync(path)) return;
  const temp = `${path}.${process.pid}.${++created}.${Date.now()}.new`;
  writeFileSync(temp, headerLine(), { flag: "wx", mode: 0o600 });
  try {
    linkSync(temp, path); // atomic: fails when another writer created the file first
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    unlinkSync(temp);
  }
}

/** How much of the start of a file is read to find its first line. */
const HEAD_WINDOW = 64 * 1024;

/** The first line of a file (at most HEAD_WINDOW bytes); null when it is missing or empty. */
function firstLine(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null; // no file yet
  }
  try {
    const bytes = Buffer.alloc(HEAD_WINDOW);
    let n: number;
    try {
      n = readSync(fd, bytes, 0, HEAD_WINDOW, 0);
    } catch {
      return null; // not a file (a folder): reading or appending it says so
    }
    if (n === 0) return null;
    const newline = bytes.subarray(0, n).indexOf(0x0a);
    return bytes.toString("utf8", 0, newline < 0 ? n : newline);
  } finally {
    closeSync(fd);
  }
}

function headerVersion(head: string): number {
  try {
    const v = (JSON.parse(head) as { version?: unknown }).version;
    return typeof v === "number" ? v : 0;
  } catch {
    return 0;
  }
}

/** Appending is for looms this build writes: a file that is something else stays untouched. */
function headerProblem(path: string, head: string): string | null {
  let record: unknown;
  try {
    record = JSON.parse(head);
  } catch {
    record = undefined;
  }
  const header = record as { type?: unknown; version?: unknown } | undefined;
  if (header?.type !== "loom" || typeof header.version !== "number") {
    return `${path} is not a loom file (its first line is not a {"type":"loom",...} header): it is left untouched; give the loom another path`;
  }
  if (header.version > LOOM_FORMAT_VERSION) {
    return `${path}: loom format version ${header.version} is newer than this Spellbook writes (${LOOM_FORMAT_VERSION}): it is left untouched`;
  }
  return null;
}
