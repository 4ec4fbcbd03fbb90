import { ConfigError, SystemError } from "../../core/errors.js";
import { redactDeep } from "../../core/redact-stream.js";
import type { EntitySummary, LoomStore, RewardRecord, StoredRecord } from "../stores/index.js";
import type { Pool } from "pg";
import { appendBatch } from "./postgres-batch.js";
import { PostgresConnection } from "./postgres-connection.js";
import { postgresPages, type HeldGaps } from "./postgres-read.js";
import type { RecordPage, RecordReadOptions } from "../stores/index.js";
import type { FoldNode, IdentityNode, Turn } from "../records/index.js";

export interface PostgresStoreOptions {
  /** Applied to every string of a record before it is sent (PROD-8 at rest), as JsonlStore's. */
  redact?: ((text: string) => string) | undefined;
}

/** The latest reward of the turn in `t`, as a lateral join. */
const LATEST_REWARD = `LEFT JOIN LATERAL (
  SELECT reward FROM loom_rewards r WHERE r.turn_id = t.id ORDER BY r.seq DESC LIMIT 1
) w ON true`;

/**
 * The path root → $1 in ONE recursive query. A parent cycle (a hand-edited loom) would loop:
 * the depth is bounded, and a turn met twice is reported as corruption.
 */
const THREAD = `WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM loom_turns WHERE id = $1
  UNION ALL
    SELECT t.id, t.parent_id, up.depth + 1
    FROM up JOIN loom_turns t ON t.id = up.parent_id
    WHERE up.depth < 1000000
  )
  SELECT t.record, w.reward FROM up JOIN loom_turns t ON t.id = up.id ${LATEST_REWARD}
  ORDER BY up.depth DESC`;

const ENTITIES = `SELECT entity_id, (array_agg(cantrip_id ORDER BY seq))[1] AS cantrip_id,
    count(*)::int AS turns, (array_agg(id ORDER BY seq))[1] AS first_id,
    (array_agg(id ORDER BY seq DESC))[1] AS last_id
  FROM loom_turns GROUP BY entity_id ORDER BY min(seq)`;

interface TurnRow {
  record: Turn;
  reward: number | null;
}

/**
 * A loom in a PostgreSQL database (docs/design/LOOM-STORES.md): one row per record, appends
 * idempotent by id, a turn unique by (entity, sequence) — a different turn at a taken place is
 * refused (`loom_fenced`: a late writer, presumed dead, never merges into the loom).
 */
export class PostgresLoomStore implements LoomStore {
  private readonly db: PostgresConnection;
  /** Gaps in the record places a settled read stopped at, with the writes then in flight. */
  private readonly heldGaps: HeldGaps = new Map();

  constructor(
    url: string,
    private readonly options: PostgresStoreOptions = {},
  ) {
    this.db = new PostgresConnection(url);
  }

  get location(): string {
    return this.db.location;
  }

  append(record: StoredRecord): Promise<boolean> {
    const { redact } = this.options;
    const { type: _type, ...body } = redact ? redactDeep(record, redact) : record;
    const json = JSON.stringify(body);
    switch (record.type) {
      case "turn":
        return this.appendTurn(record, json);
      case "identity":
        return this.insert(
          "INSERT INTO loom_identities (cantrip_id, record) VALUES ($1, $2) ON CONFLICT (cantrip_id) DO NOTHING",
          [record.cantrip_id, json],
        );
      case "fold":
        return this.insert(
          "INSERT INTO loom_folds (id, entity_id, record) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
          [record.id, record.entity_id, json],
        );
      case "reward":
        // A reward has no id of its own: its text's digest is one, so a retried append (or a
        // loom imported twice) does not double it.
        return this.insert(
          "INSERT INTO loom_rewards (id, turn_id, reward, record) VALUES (md5($1), $2, $3, $1::json) ON CONFLICT (id) DO NOTHING",
          [json, record.turn_id, record.reward],
        );
    }
  }

  /**
   * Appends `records` in one transaction (postgres-batch.ts), in their order; how many were
   * new. "fenced" when one of them is a turn at a place another turn holds: then nothing of
   * them is stored (append them one by one to store those before it and be told which).
   */
  appendMany(records: readonly StoredRecord[]): Promise<number | "fenced"> {
    return this.db.run(async (pool) => {
      try {
        return await appendBatch(pool as Pool, records);
      } catch (err) {
        if (isFence(err)) return "fenced";
        throw err;
      }
    });
  }

  async readThread(turnId: string): Promise<Turn[]> {
    const rows = await this.db.run((c) => c.query<TurnRow>(THREAD, [turnId]));
    if (rows.rows.length === 0)
      throw new ConfigError("loom_unknown_turn", `no turn ${turnId} in the loom`);
    const seen = new Set<string>();
    for (const { record } of rows.rows) {
      if (seen.has(record.id))
        throw new ConfigError("loom_corrupt", `loom has a parent cycle at turn ${record.id}`);
      seen.add(record.id);
    }
    return rows.rows.map(rewarded);
  }

  async turn(turnId: string): Promise<Turn | undefined> {
    const sql = `SELECT t.record, w.reward FROM loom_turns t ${LATEST_REWARD} WHERE t.id = $1`;
    const rows = await this.db.run((c) => c.query<TurnRow>(sql, [turnId]));
    const found = rows.rows[0];
    return found && rewarded(found);
  }

  /** The reward records of these turns (with their reasons), in append order. */
  async rewardRecords(turnIds: readonly string[]): Promise<RewardRecord[]> {
    const sql = "SELECT record FROM loom_rewards WHERE turn_id = ANY($1::text[]) ORDER BY seq";
    type Row = { record: RewardRecord };
    const rows = await this.db.run((c) => c.query<Row>(sql, [turnIds]));
    return rows.rows.map((r) => ({ ...r.record, type: "reward" }));
  }

  async readEntity(entityId: string): Promise<Turn[]> {
    const sql = `SELECT t.record, w.reward FROM loom_turns t ${LATEST_REWARD} WHERE t.entity_id = $1 ORDER BY t.seq`;
    const rows = await this.db.run((c) => c.query<TurnRow>(sql, [entityId]));
    return rows.rows.map(rewarded);
  }

  async listEntities(): Promise<EntitySummary[]> {
    type Row = {
      entity_id: string;
      cantrip_id: string;
      turns: number;
      first_id: string;
      last_id: string;
    };
    const rows = await this.db.run((c) => c.query<Row>(ENTITIES));
    return rows.rows.map((r) => ({
      entityId: r.entity_id,
      cantripId: r.cantrip_id,
      turns: r.turns,
      firstTurnId: r.first_id,
      lastTurnId: r.last_id,
    }));
  }

  async rewards(): Promise<ReadonlyMap<string, number>> {
    const sql =
      "SELECT DISTINCT ON (turn_id) turn_id, reward FROM loom_rewards ORDER BY turn_id, seq DESC";
    const rows = await this.db.run((c) => c.query<{ turn_id: string; reward: number }>(sql));
    return new Map(rows.rows.map((r) => [r.turn_id, r.reward]));
  }

  async folds(entityId?: string): Promise<FoldNode[]> {
    const rows = await this.db.run((c) =>
      entityId === undefined
        ? c.query<{ record: FoldNode }>("SELECT record FROM loom_folds ORDER BY seq")
        : c.query<{ record: FoldNode }>(
            "SELECT record FROM loom_folds WHERE entity_id = $1 ORDER BY seq",
            [entityId],
          ),
    );
    return rows.rows.map((r) => Object.freeze(r.record));
  }

  async identity(cantripId: string): Promise<IdentityNode | undefined> {
    const sql = "SELECT record FROM loom_identities WHERE cantrip_id = $1";
    const rows = await this.db.run((c) => c.query<{ record: IdentityNode }>(sql, [cantripId]));
    const found = rows.rows[0]?.record;
    return found && Object.freeze(found);
  }

  async noteEntitySpell(entityId: string, spell: string): Promise<void> {
    const sql = `INSERT INTO loom_entity_spells (entity_id, spell) VALUES ($1, $2)
      ON CONFLICT (entity_id) DO UPDATE SET updated = clock_timestamp()`;
    await this.db.run((c) => c.query(sql, [entityId, spell]));
  }

  async entitiesOfSpell(spell: string): Promise<string[]> {
    const sql =
      "SELECT entity_id FROM loom_entity_spells WHERE spell = $1 ORDER BY updated, entity_id";
    const rows = await this.db.run((c) => c.query<{ entity_id: string }>(sql, [spell]));
    return rows.rows.map((r) => r.entity_id);
  }

  async spellOfEntity(entityId: string): Promise<string | undefined> {
    const sql = "SELECT spell FROM loom_entity_spells WHERE entity_id = $1";
    const rows = await this.db.run((c) => c.query<{ spell: string }>(sql, [entityId]));
    return rows.rows[0]?.spell;
  }

  /** Every record in append order, a page at a time (postgres-read.ts): bounded memory. */
  recordPages(from = 0, options: RecordReadOptions = {}): AsyncIterable<RecordPage> {
    return postgresPages(this.db, from, options.settled ? this.heldGaps : undefined);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  private appendTurn(turn: Turn, json: string): Promise<boolean> {
    const sql = `INSERT INTO loom_turns (id, parent_id, entity_id, cantrip_id, sequence, record)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`;
    const values = [turn.id, turn.parent_id, turn.entity_id, turn.cantrip_id, turn.sequence, json];
    return this.insert(sql, values);
  }

  private async insert(sql: string, values: unknown[]): Promise<boolean> {
    const result = await this.db.run(async (c) => {
      try {
        return await c.query(sql, values);
      } catch (err) {
        throw fenced(err, values) ?? err;
      }
    });
    return (result.rowCount ?? 0) > 0;
  }
}

/** A unique violation on (entity, sequence): another writer's turn holds the place. */
function isFence(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e.code === "23505" && e.constraint === "loom_turns_entity_sequence";
}

function fenced(err: unknown, values: unknown[]): SystemError | undefined {
  if (!isFence(err)) return undefined;
  return new SystemError(
    "loom_fenced",
    `turn ${String(values[0])} refused: entity ${String(values[2])} already has a turn at sequence ${String(values[4])} (another writer holds this entity; a late write is never merged)`,
  );
}

function rewarded(row: TurnRow): Turn {
  return Object.freeze(row.reward === null ? row.record : { ...row.record, reward: row.reward });
}

/** A PostgreSQL loom at `url` (postgres://…); nothing connects until the first call. */
export function postgresLoomStore(
  url: string,
  options: PostgresStoreOptions = {},
): PostgresLoomStore {
  return new PostgresLoomStore(url, options);
}
