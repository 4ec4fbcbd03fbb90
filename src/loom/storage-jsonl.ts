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
 * read only when the loom is: opening a long history costs a look at its last line, not a parse.
 */
export class JsonlStore implements LoomStore {
  private fd: number | null = null;
  readonly readsBack = true;
  readonly warnings: string[] = [];

  constructor(readonly location: string) {
    const torn = tornTailLength(location);
    if (torn !== null) {
      this.warnings.push(
        `${location}: the last line was cut off mid-write (${torn} bytes) and was skipped; every record before it is intact`,
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
    try {
      mkdirSync(dirname(this.location), { recursive: true });
      this.fd = openSync(this.location, "a");
      const size = fstatSync(this.fd).size;
      if (size > 0 && tornTailLength(this.location) !== null) {
        // Close the cut line and mark it, so readers know it is a known tear, not corruption.
        const marker: LoomRecord = { type: "torn", timestamp: isoNow() };
        writeSync(this.fd, `\n${JSON.stringify(marker)}\n`);
      }
      if (size === 0) {
        const header: LoomRecord = {
          type: "loom",
          version: LOOM_FORMAT_VERSION,
          created: isoNow(),
        };
        writeSync(this.fd, `${JSON.stringify(header)}\n`);
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

/** How far back a cut line is looked for; a longer one is reported as at least this long. */
const TAIL_WINDOW = 1 << 20;

/**
 * The length of a last line cut off mid-write (the file does not end in a newline), or null.
 * Reads only the end of the file.
 */
function tornTailLength(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null; // no file yet
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return null;
    const length = Math.min(size, TAIL_WINDOW);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    if (tail[length - 1] === 0x0a) return null;
    return length - (tail.lastIndexOf(0x0a) + 1);
  } finally {
    closeSync(fd);
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
