import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { SystemError } from "../core/errors.js";
import { isoNow } from "../core/clock.js";
import type { LoomStore } from "./store.js";
import { LOOM_FORMAT_VERSION, type LoomRecord, type Turn } from "./turn.js";

export interface LoomReadResult {
  records: LoomRecord[];
  /** A last line cut off mid-write (a killed process): reported, never fatal. */
  tornTail: string | null;
  version: number;
}

/**
 * The spec's reference format: one JSON record per line, appended with one write each so a
 * turn is on disk before the next begins (LOOM-1). One file descriptor stays open. The file is
 * read only when the loom is: opening a long history costs a look at its first and last lines,
 * not a parse.
 */
export class JsonlStore implements LoomStore {
  private fd: number | null = null;
  readonly readsBack = true;
  readonly warnings: string[] = [];
  /** Why this file may be read but not appended to (not a loom, or a newer format); else null. */
  readonly refusal: string | null;
  /** The file ends in a line without its newline: complete (a record) or cut off mid-write. */
  private readonly unterminated: "complete" | "torn" | null;

  constructor(readonly location: string) {
    const ends = fileEnds(location);
    this.refusal = ends && headerProblem(location, ends.head);
    this.unterminated = ends?.tail == null ? null : isJson(ends.tail.text) ? "complete" : "torn";
    if (ends?.tail && this.unterminated === "torn") {
      const bytes = ends.tail.whole ? `${ends.tail.bytes} bytes` : `over ${ends.tail.bytes} bytes`;
      this.warnings.push(
        `${location}: the last line was cut off mid-write (${bytes}) and was skipped; every record before it is intact`,
      );
    }
  }

  load(): LoomRecord[] {
    return existsSync(this.location) ? readLoomFile(this.location).records : [];
  }

  append(record: LoomRecord): void {
    if (this.fd === null) this.open();
    writeSync(this.fd!, `${JSON.stringify(record)}\n`);
  }

  appendTurn(turn: Turn): void {
    if (this.fd === null) this.open();
    // Same line as append({ type: "turn", ...turn }), without copying the turn.
    writeSync(this.fd!, `{"type":"turn",${JSON.stringify(turn).slice(1)}\n`);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): void {
    if (this.refusal) throw new SystemError("loom_refused", this.refusal);
    try {
      mkdirSync(dirname(this.location), { recursive: true });
      this.fd = openSync(this.location, "a");
      if (fstatSync(this.fd).size === 0) {
        const header: LoomRecord = {
          type: "loom",
          version: LOOM_FORMAT_VERSION,
          created: isoNow(),
        };
        writeSync(this.fd, `${JSON.stringify(header)}\n`);
      } else if (this.unterminated === "complete") {
        writeSync(this.fd, "\n"); // a whole record without its newline: just end the line
      } else if (this.unterminated === "torn") {
        // Close the cut line and mark it, so readers know it is a known tear, not corruption.
        const marker: LoomRecord = { type: "torn", timestamp: isoNow() };
        writeSync(this.fd, `\n${JSON.stringify(marker)}\n`);
      }
    } catch (err) {
      throw new SystemError(
        "loom_io",
        `cannot open loom ${this.location}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}

/** How much of each end of a file is read to find its first line and an unterminated last one. */
const HEAD_WINDOW = 64 * 1024;
const TAIL_WINDOW = 1 << 20;

interface FileEnds {
  /** The first line (or the first HEAD_WINDOW bytes when it is longer). */
  head: string;
  /** The last line when the file does not end in a newline; `whole` is false past TAIL_WINDOW. */
  tail: { text: string; bytes: number; whole: boolean } | null;
}

/** The first line and an unterminated last line of a file; null when it is missing or empty. */
function fileEnds(path: string): FileEnds | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null; // no file yet
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return null;
    const headBytes = Buffer.alloc(Math.min(size, HEAD_WINDOW));
    readSync(fd, headBytes, 0, headBytes.length, 0);
    const firstNewline = headBytes.indexOf(0x0a);
    const head = headBytes.toString("utf8", 0, firstNewline < 0 ? headBytes.length : firstNewline);
    const length = Math.min(size, TAIL_WINDOW);
    const tailBytes = Buffer.alloc(length);
    readSync(fd, tailBytes, 0, length, size - length);
    if (tailBytes[length - 1] === 0x0a) return { head, tail: null };
    const start = tailBytes.lastIndexOf(0x0a) + 1;
    const whole = start > 0 || length === size;
    return {
      head,
      tail: { text: tailBytes.toString("utf8", start), bytes: length - start, whole },
    };
  } finally {
    closeSync(fd);
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

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function readLoomFile(path: string): LoomReadResult {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const records: LoomRecord[] = [];
  let tornTail: string | null = null;
  let version = LOOM_FORMAT_VERSION;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      const record = JSON.parse(line) as LoomRecord;
      if (record.type === "loom") {
        version = record.version;
        if (version > LOOM_FORMAT_VERSION) {
          throw new SystemError(
            "loom_version",
            `${path}: loom format version ${version} is newer than this Spellbook reads (${LOOM_FORMAT_VERSION})`,
          );
        }
      }
      records.push(record);
    } catch (err) {
      if (err instanceof SystemError) throw err;
      const rest = lines.slice(i + 1).filter((l) => l.trim() !== "");
      const marked = rest[0]?.startsWith('{"type":"torn"') === true;
      if (rest.length > 0 && !marked)
        throw new SystemError("loom_corrupt", `${path}:${i + 1}: not a JSON record`);
      if (rest.length === 0) tornTail = line;
    }
  });
  return { records, tornTail, version };
}
