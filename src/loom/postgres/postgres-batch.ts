/**
 * Many records appended to a PostgreSQL loom in one transaction (`spell loom import`): one
 * INSERT per table over arrays (`unnest`), each row idempotent by id as a single append is. The
 * records keep their order: their `seq` values are drawn from the loom's one sequence first and
 * handed out in the order given, so a loom read back (export) is the file it came from.
 */
import type { Pool, PoolClient } from "pg";
import type { StoredRecord } from "../stores/index.js";

type Row = { seq: string };

const TURNS = `INSERT INTO loom_turns (seq, id, parent_id, entity_id, cantrip_id, sequence, record)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::json[])
  ON CONFLICT (id) DO NOTHING`;
const IDENTITIES = `INSERT INTO loom_identities (seq, cantrip_id, record)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::json[]) ON CONFLICT (cantrip_id) DO NOTHING`;
const FOLDS = `INSERT INTO loom_folds (seq, id, entity_id, record)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::json[]) ON CONFLICT (id) DO NOTHING`;
// A reward's id is its text's digest, as a single append's (storage-postgres.ts).
const REWARDS = `INSERT INTO loom_rewards (seq, id, turn_id, reward, record)
  SELECT s, md5(r), t, v, r::json FROM unnest($1::bigint[], $2::text[], $3::text[], $4::float8[]) AS u(s, r, t, v)
  ON CONFLICT (id) DO NOTHING`;

/**
 * Appends `records` in one transaction on `pool`; how many were new. A statement that fails (a
 * turn at a place another turn holds: `23505` on `loom_turns_entity_sequence`) rolls the whole
 * batch back, so nothing of it is stored, and rejects with the database's error.
 */
export async function appendBatch(pool: Pool, records: readonly StoredRecord[]): Promise<number> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const added = await insertAll(client, records);
    await client.query("COMMIT");
    return added;
  } catch (err) {
    // A rollback that fails too means the connection is gone: the client is not pooled again.
    await client.query("ROLLBACK").catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

async function insertAll(client: PoolClient, records: readonly StoredRecord[]): Promise<number> {
  const seqs = await client.query<Row>(
    "SELECT nextval('loom_record_seq')::text AS seq FROM generate_series(1, $1::int)",
    [records.length],
  );
  const order = seqs.rows.map((r) => BigInt(r.seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const turns: unknown[][] = [[], [], [], [], [], [], []];
  const identities: unknown[][] = [[], [], []];
  const folds: unknown[][] = [[], [], [], []];
  const rewards: unknown[][] = [[], [], [], []];
  records.forEach((record, i) => {
    const seq = order[i]!.toString();
    const { type: _type, ...body } = record;
    const json = JSON.stringify(body);
    const push = (columns: unknown[][], values: unknown[]) =>
      values.forEach((v, k) => columns[k]!.push(v));
    switch (record.type) {
      case "turn": {
        const { id, parent_id, entity_id, cantrip_id, sequence } = record;
        push(turns, [seq, id, parent_id, entity_id, cantrip_id, sequence, json]);
        break;
      }
      case "identity":
        push(identities, [seq, record.cantrip_id, json]);
        break;
      case "fold":
        push(folds, [seq, record.id, record.entity_id, json]);
        break;
      case "reward":
        push(rewards, [seq, json, record.turn_id, record.reward]);
        break;
    }
  });
  let added = 0;
  for (const [sql, columns] of [
    [IDENTITIES, identities],
    [TURNS, turns],
    [FOLDS, folds],
    [REWARDS, rewards],
  ] as const) {
    if (columns[0]!.length === 0) continue;
    added += (await client.query(sql, columns)).rowCount ?? 0;
  }
  return added;
}
