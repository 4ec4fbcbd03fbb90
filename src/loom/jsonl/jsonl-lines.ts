import { closeSync, openSync, readSync } from "node:fs";

/** How much of a file is read at a time: memory stays at one chunk plus the longest line. */
const CHUNK = 1 << 20;

/**
 * Calls `fn` with every line of a file, in order, reading it a chunk at a time (a loom of
 * any size is read in bounded memory: one chunk and the line being read). `terminated` is
 * false for a last line without its newline.
 */
export function forEachLine(
  path: string,
  fn: (line: string, lineNumber: number, terminated: boolean) => void,
): void {
  for (const { text, lineNumber, terminated } of fileLines(path)) fn(text, lineNumber, terminated);
}

/** A line of a file, as `fileLines` gives it. */
export interface FileLine {
  text: string;
  lineNumber: number;
  /** False for a last line without its newline. */
  terminated: boolean;
}

/**
 * The lines of a file, in order, read a chunk at a time when asked for: a reader that stops
 * asking (a consumer waiting for a slow stdout) holds one chunk, and stopping early closes
 * the file.
 */
export function* fileLines(path: string): Generator<FileLine, void, undefined> {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    let pending: Buffer[] = [];
    let lineNumber = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK, null);
      if (n === 0) break;
      let start = 0;
      for (let nl = chunk.indexOf(0x0a, 0); nl >= 0 && nl < n; nl = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, nl);
        const line = pending.length ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        start = nl + 1;
        yield { text: line.toString("utf8"), lineNumber: ++lineNumber, terminated: true };
      }
      if (start < n) pending.push(Buffer.from(chunk.subarray(start, n)));
    }
    if (pending.length)
      yield {
        text: Buffer.concat(pending).toString("utf8"),
        lineNumber: ++lineNumber,
        terminated: false,
      };
  } finally {
    closeSync(fd);
  }
}

/** Every record this build writes begins with these bytes (its `type` key comes first). */
export const RECORD_START = '{"type":"';

/**
 * A line that is not one JSON value, taken apart. With `O_APPEND` writers, a writer killed in
 * the middle of a record leaves a piece of it without its newline, and the next record of
 * another writer is glued onto it: `piece{"type":"turn",…}`. Every record begins with
 * RECORD_START, so the line is read back from its end: the shortest tail that parses is the
 * last record, and so on; what is left that does not parse is a torn piece.
 * Returns null when the line does not begin like a record at all (corruption, not a tear).
 */
export function splitGlued(line: string): { values: unknown[]; torn: string[] } | null {
  if (!line.startsWith(RECORD_START)) return null;
  const starts: number[] = [];
  for (let i = 0; i >= 0 && starts.length < 10_000; i = line.indexOf(RECORD_START, i + 1))
    starts.push(i);
  const values: unknown[] = [];
  const torn: string[] = [];
  let end = line.length;
  while (end > 0) {
    let found = -1;
    for (const s of starts) {
      if (s >= end) break;
      const value = tryParse(line.slice(s, end));
      if (value !== undefined) {
        values.unshift(value);
        found = s;
        break;
      }
    }
    if (found < 0) {
      torn.unshift(line.slice(0, end));
      break;
    }
    end = found;
  }
  return { values, torn };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
