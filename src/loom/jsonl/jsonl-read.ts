import { SystemError } from "../../core/errors.js";
import { decodeRecord } from "./jsonl-codec.js";
import { fileLines, splitGlued } from "./jsonl-lines.js";
import { LOOM_FORMAT_VERSION, type LoomRecord } from "../records/index.js";

/** A piece of a record cut off mid-write (a killed writer), skipped when read. */
export interface TornPiece {
  line: number;
  bytes: number;
  text: string;
}

export interface LoomReadResult {
  records: LoomRecord[];
  /** A last line cut off mid-write (a killed process): reported, never fatal. */
  tornTail: string | null;
  /** Every torn piece, wherever it is (with several writers, a tear can be anywhere). */
  torn: TornPiece[];
  version: number;
}

/** What reading a loom file gives, in file order: a record, or a torn piece skipped. */
export type LoomItem = { record: LoomRecord; torn?: undefined } | { torn: TornPiece };

/**
 * Reads a loom file record by record, in bounded memory (a line at a time). A line that is
 * not one record is taken apart (see splitGlued): the records glued onto a torn piece are
 * kept and the piece is reported to `onTorn`. A line that does not even begin like a record
 * is corruption (SystemError loom_corrupt) — unless it is the last line, or a `torn` marker
 * of version 1 follows it. Returns the format version of the header.
 */
export function readRecords(
  path: string,
  onRecord: (record: LoomRecord) => void,
  onTorn: (piece: TornPiece) => void = () => {},
): number {
  const items = loomItems(path);
  for (let next = items.next(); ; next = items.next()) {
    if (next.done) return next.value;
    if (next.value.torn) onTorn(next.value.torn);
    else onRecord(next.value.record);
  }
}

/**
 * The records and torn pieces of a loom file, read when asked for (see readRecords): a reader
 * that waits between items (an export to a slow stdout) holds one chunk of the file. Returns
 * the format version of the header.
 */
export function* loomItems(path: string): Generator<LoomItem, number, undefined> {
  let version = LOOM_FORMAT_VERSION;
  let headers = 0;
  let held: { text: string; line: number } | null = null; // a bad line, judged by what follows
  const decode = (value: unknown, line: number): LoomRecord => {
    const record = decodeRecord(value);
    if (!record) throw corrupt(path, line);
    if (record.type === "loom") {
      if (headers++ === 0) version = record.version;
      if (record.version > LOOM_FORMAT_VERSION) {
        throw new SystemError(
          "loom_version",
          `${path}: loom format version ${record.version} is newer than this Spellbook reads (${LOOM_FORMAT_VERSION})`,
        );
      }
    }
    return record;
  };
  for (const { text, lineNumber: line } of fileLines(path)) {
    if (text.trim() === "") continue;
    if (held) {
      if (!text.startsWith('{"type":"torn"')) throw corrupt(path, held.line);
      yield { torn: { line: held.line, bytes: Buffer.byteLength(held.text), text: held.text } };
      held = null;
    }
    const whole = tryParse(text);
    if (whole !== undefined) {
      yield { record: decode(whole, line) };
      continue;
    }
    const glued = splitGlued(text);
    if (!glued) {
      held = { text, line };
      continue;
    }
    for (const piece of glued.torn)
      yield { torn: { line, bytes: Buffer.byteLength(piece), text: piece } };
    for (const value of glued.values) yield { record: decode(value, line) };
  }
  if (held) {
    const { text, line } = held;
    yield { torn: { line, bytes: Buffer.byteLength(text), text } };
  }
  return version;
}

/** The whole file in memory (the loom's index); see readRecords. */
export function readLoomFile(path: string): LoomReadResult {
  const records: LoomRecord[] = [];
  const torn: TornPiece[] = [];
  let recordsBeforeLastTear = -1;
  const version = readRecords(
    path,
    (r) => records.push(r),
    (p) => {
      torn.push(p);
      recordsBeforeLastTear = records.length;
    },
  );
  // The last piece is the file's tail when no record was read after it.
  const tornTail =
    recordsBeforeLastTear === records.length ? (torn[torn.length - 1]?.text ?? null) : null;
  return { records, tornTail, torn, version };
}

/** How a reader says it skipped a piece of a record. */
export function tornMessage(path: string, piece: TornPiece): string {
  return `${path}:${piece.line}: a record cut off mid-write (${piece.bytes} bytes) was skipped; the records around it are intact`;
}

function corrupt(path: string, line: number): SystemError {
  return new SystemError("loom_corrupt", `${path}:${line}: not a JSON record`);
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
