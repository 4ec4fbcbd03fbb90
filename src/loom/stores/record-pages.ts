/**
 * A loom's records read a page at a time (`LoomReadStore.recordPages`), for the stores that keep
 * them in a file or in memory: a page holds at most PAGE_RECORDS records or about PAGE_BYTES of
 * their text (or one record, whatever its size), and the next page is read only when the caller
 * asks for it (an export to a slow stdout holds one page, whatever the loom's size).
 */
import { loomItems, tornMessage } from "../jsonl/index.js";
import type { LoomRecord } from "../records/index.js";

/** A record a store keeps: everything but the file's own header and its tear marks. */
export type StoredRecord = Exclude<LoomRecord, { type: "loom" } | { type: "torn" }>;

/** Records read together; `next` is where a later read starts to get only what came after. */
export interface RecordPage {
  records: StoredRecord[];
  /** A position to give `recordPages(next)`: the records stored after this page's last. */
  next: number;
}

export interface RecordReadOptions {
  /** Told about each torn piece skipped (a killed writer's cut-off record in a file). */
  onTorn?: ((message: string) => void) | undefined;
  /**
   * A reader that follows the loom (the live viewer, a look after a look) asks for only the
   * records no write still in flight can come before: a record whose write commits after a
   * later-placed one's is read by a later call instead of being passed over. A store whose
   * records land in place order (a file, memory) has nothing to hold back.
   */
  settled?: boolean | undefined;
}

/** At most this many records a page… */
export const PAGE_RECORDS = 256;
/** …and about this much text (one record alone may hold more): a file's read chunk. */
export const PAGE_BYTES = 1 << 20;

/** About how much text a record holds (its utterance, observation and gate calls). */
export function recordBytes(record: StoredRecord): number {
  if (record.type !== "turn") return 256;
  let n = record.utterance.length + record.observation.length;
  for (const call of record.gate_calls ?? [])
    n += String(call.arguments ?? "").length + String(call.result ?? "").length;
  return n;
}

/**
 * The records of `source` in pages, from position `from` (the count of records before it).
 * A cantrip's identity comes once, as a store keyed by cantrip keeps it (a file written by two
 * processes may hold it twice); the file's header and tear marks are not records of the loom.
 */
function* pagesOf(
  source: Iterable<LoomRecord>,
  from: number,
): Generator<RecordPage, void, undefined> {
  const identities = new Set<string>();
  let position = 0;
  let page: StoredRecord[] = [];
  let bytes = 0;
  for (const record of source) {
    if (record.type === "loom" || record.type === "torn") continue;
    position++;
    if (record.type === "identity") {
      if (identities.has(record.cantrip_id)) continue;
      identities.add(record.cantrip_id);
    }
    if (position <= from) continue;
    page.push(record);
    bytes += recordBytes(record);
    if (page.length >= PAGE_RECORDS || bytes >= PAGE_BYTES) {
      yield { records: page, next: position };
      page = [];
      bytes = 0;
    }
  }
  if (page.length > 0) yield { records: page, next: position };
}

/** A loom file's records in pages (torn pieces reported to `onTorn`); see pagesOf. */
export function filePages(
  path: string,
  from = 0,
  options: RecordReadOptions = {},
): AsyncIterable<RecordPage> {
  function* records(): Generator<LoomRecord, void, undefined> {
    for (const item of loomItems(path)) {
      if (item.torn) options.onTorn?.(tornMessage(path, item.torn));
      else yield item.record;
    }
  }
  return asynchronous(pagesOf(records(), from));
}

/** Records held in memory, in pages; see pagesOf. */
export function listPages(records: readonly LoomRecord[], from = 0): AsyncIterable<RecordPage> {
  return asynchronous(pagesOf(records, from));
}

/**
 * Pages read synchronously, as the contract's asynchronous pages: each read when asked for (no
 * event-loop turn added between two: an export of a big file keeps its memory to a record's).
 */
function asynchronous(pages: Generator<RecordPage, void, undefined>): AsyncIterable<RecordPage> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => settle(() => pages.next()),
      return: () => settle(() => pages.return()),
    }),
  };
}

function settle<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** Every record of the pages, one at a time. */
export async function* eachRecord(
  pages: AsyncIterable<RecordPage>,
): AsyncGenerator<StoredRecord, void, undefined> {
  for await (const page of pages) yield* page.records;
}
