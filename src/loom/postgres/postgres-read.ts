/**
 * A PostgreSQL loom's records read a page at a time (`PostgresLoomStore.recordPages`): two
 * cursors over one read-only snapshot, one reading the records' sizes ahead, so a page holds at
 * most RECORD_PAGE_BYTES of records (or one record, whatever its size), the next page read only
 * when the caller asks for it (issue 40: memory bounded by a page, not by the loom).
 */
import type { RecordPage } from "../stores/index.js";
import type { StoredRecord } from "../stores/index.js";
import type { PoolClient } from "pg";
import type { PostgresConnection } from "./postgres-connection.js";

/**
 * Every record of the loom in append order, as JSONL would hold them (export, view, import),
 * with its place (`seq`, one sequence for every table) after `$FROM` (a number, checked).
 */
const recordsAfter = (
  from: number,
) => `SELECT seq, 'identity' AS type, record FROM loom_identities WHERE seq > ${from}
  UNION ALL SELECT seq, 'turn', record FROM loom_turns WHERE seq > ${from}
  UNION ALL SELECT seq, 'reward', record FROM loom_rewards WHERE seq > ${from}
  UNION ALL SELECT seq, 'fold', record FROM loom_folds WHERE seq > ${from}
  ORDER BY seq`;

/** A page of records: at most this many bytes of JSON (or one record)… */
export const RECORD_PAGE_BYTES = 4 << 20;
/** …and at most this many records. */
const RECORD_PAGE_ROWS = 256;

type Row = { seq: string; type: StoredRecord["type"]; record: Record<string, unknown> };

/**
 * Places a settled read stopped before (the first place of a gap in `seq`), each with the
 * transactions in flight when it was first seen: one of them may hold the place.
 */
export type HeldGaps = Map<number, ReadonlySet<string>>;

/**
 * A row as the record it stores: of its table's type whatever its JSON says (a row's `"type":
 * "loom"` would otherwise pass for a loom header), and an object (a row whose JSON is a string,
 * an array or null, which no store writes, is an empty record of its type).
 */
function storedRecord(row: Row): StoredRecord {
  const body = row.record;
  const record: Record<string, unknown> =
    body !== null && typeof body === "object" && !Array.isArray(body)
      ? { type: row.type, ...body }
      : {};
  record["type"] = row.type; // first as JSONL writes it, and the table's
  return record as StoredRecord;
}

/**
 * The records stored after position `from` (0: all), in pages; a page's `next` is the place of
 * its last record.
 *
 * Places are drawn from a sequence before a record's transaction commits, so two writers at once
 * can commit out of place order: a read may see place 11 while place 10's transaction is still in
 * flight. A plain read (export, import) returns what is committed. A settled read (`held`, the
 * store's gaps: a reader that follows the loom) stops before a gap while some transaction that
 * was in flight when the gap was first seen still runs, and passes it once they have all ended
 * (the place was rolled back, or taken by an insert that conflicted): the late record is read by
 * a later call, not passed over. Gaps are common (a conflicting insert draws a place too); one
 * seen while no write is in flight is passed at once.
 */
export async function* postgresPages(
  db: PostgresConnection,
  from = 0,
  held?: HeldGaps,
): AsyncGenerator<RecordPage, void, undefined> {
  if (!Number.isSafeInteger(from) || from < 0) throw new Error(`bad record position ${from}`);
  const records = recordsAfter(from);
  const client = await db.session();
  let inTransaction = false;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    inTransaction = true;
    // The snapshot is taken here: the transactions in flight are those it does not see.
    const inFlight = held && (await transactionsInFlight(client));
    let last = from;
    await client.query(
      `DECLARE loom_sizes SCROLL CURSOR FOR SELECT octet_length(a.record::text) AS bytes FROM (${records}) a`,
    );
    await client.query(`DECLARE loom_records NO SCROLL CURSOR FOR ${records}`);
    // The sizes cursor reads ahead, then goes back to the first record not yet read.
    for (let read = 0; ;) {
      const sizes = await client.query<{ bytes: number }>(
        `FETCH ${RECORD_PAGE_ROWS} FROM loom_sizes`,
      );
      if (sizes.rows.length === 0) break;
      let count = 0;
      for (let bytes = 0; count < sizes.rows.length; count++) {
        bytes += sizes.rows[count]!.bytes;
        if (count > 0 && bytes > RECORD_PAGE_BYTES) break;
      }
      read += count;
      await client.query(`MOVE ABSOLUTE ${read} FROM loom_sizes`);
      const page = await client.query<Row>(`FETCH ${count} FROM loom_records`);
      let rows = page.rows;
      if (held && inFlight) {
        const stop = rows.findIndex((r, i) => {
          const before = i === 0 ? last : Number(rows[i - 1]!.seq);
          return Number(r.seq) > before + 1 && holds(held, before + 1, inFlight);
        });
        if (stop >= 0) rows = rows.slice(0, stop);
      }
      if (rows.length > 0) {
        last = Number(rows.at(-1)!.seq);
        yield {
          records: rows.map(storedRecord),
          next: last,
        };
      }
      if (rows.length < page.rows.length) break;
    }
    await client.query("COMMIT");
    inTransaction = false;
  } catch (err) {
    throw db.error(err);
  } finally {
    if (inTransaction) await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}

/** The ids of the transactions the read's snapshot saw in flight. */
async function transactionsInFlight(client: PoolClient): Promise<ReadonlySet<string>> {
  const rows = await client.query<{ xid: string }>(
    "SELECT pg_snapshot_xip(pg_current_snapshot())::text AS xid",
  );
  return new Set(rows.rows.map((r) => r.xid));
}

/**
 * Whether a settled read stops before the gap starting at `place`: while a transaction in flight
 * when it was first seen is still in flight (`inFlight`, this read's snapshot).
 */
function holds(held: HeldGaps, place: number, inFlight: ReadonlySet<string>): boolean {
  const then = held.get(place) ?? inFlight;
  for (const xid of then) {
    if (inFlight.has(xid)) {
      held.set(place, then);
      return true;
    }
  }
  held.delete(place);
  return false;
}
