import { SystemError } from "../../core/errors.js";
import type { PoolClient } from "pg";

/**
 * The PostgreSQL loom's schema, as numbered migrations (docs/design/LOOM-STORES.md). Migration N
 * takes a database at version N-1 to N; `loom_schema_version` holds one row per migration run.
 * Never edit a released migration: add the next one.
 *
 * Every record table draws its `seq` from one sequence, so the records of all kinds read back in
 * the order they were appended (an export is the JSONL file the records would have made).
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE SEQUENCE loom_record_seq`,
    `CREATE TABLE loom_turns (
       seq bigint PRIMARY KEY DEFAULT nextval('loom_record_seq'),
       id text NOT NULL UNIQUE,
       parent_id text,
       entity_id text NOT NULL,
       cantrip_id text NOT NULL,
       sequence integer NOT NULL,
       record json NOT NULL,
       CONSTRAINT loom_turns_entity_sequence UNIQUE (entity_id, sequence)
     )`,
    `CREATE INDEX loom_turns_entity ON loom_turns (entity_id, seq)`,
    `CREATE TABLE loom_rewards (
       seq bigint PRIMARY KEY DEFAULT nextval('loom_record_seq'),
       id text NOT NULL UNIQUE,
       turn_id text NOT NULL,
       reward double precision NOT NULL,
       record json NOT NULL
     )`,
    `CREATE INDEX loom_rewards_turn ON loom_rewards (turn_id, seq)`,
    `CREATE TABLE loom_folds (
       seq bigint PRIMARY KEY DEFAULT nextval('loom_record_seq'),
       id text NOT NULL UNIQUE,
       entity_id text NOT NULL,
       record json NOT NULL
     )`,
    `CREATE TABLE loom_identities (
       seq bigint PRIMARY KEY DEFAULT nextval('loom_record_seq'),
       cantrip_id text NOT NULL UNIQUE,
       record json NOT NULL
     )`,
  ],
  // 2: which entities a spell file summoned (`spell summon --continue`), as a loom file's state
  // file keeps it; `updated` is when a summon last started or continued the entity.
  [
    `CREATE TABLE loom_entity_spells (
       entity_id text PRIMARY KEY,
       spell text NOT NULL,
       updated timestamptz NOT NULL DEFAULT clock_timestamp()
     )`,
    `CREATE INDEX loom_entity_spells_spell ON loom_entity_spells (spell, updated)`,
  ],
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any constant: the advisory lock that makes two first users migrate one after the other. */
const MIGRATION_LOCK = 0x5e11b00c;

/**
 * Brings the database to SCHEMA_VERSION, in one transaction under an advisory lock. A database
 * at a newer version than this build knows is refused before anything is written.
 */
export async function migrate(client: PoolClient, location: string): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    const found = await client.query<{ t: string | null }>(
      "SELECT to_regclass('loom_schema_version')::text AS t",
    );
    let version = 0;
    if (found.rows[0]?.t) {
      const rows = await client.query<{ v: number | null }>(
        "SELECT max(version) AS v FROM loom_schema_version",
      );
      version = rows.rows[0]?.v ?? 0;
    }
    if (version > SCHEMA_VERSION) {
      throw new SystemError(
        "loom_schema",
        `the loom at ${location} has schema version ${version}; this Spellbook knows up to ${SCHEMA_VERSION} (upgrade Spellbook to use it)`,
      );
    }
    if (version === 0)
      await client.query(
        "CREATE TABLE loom_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
      );
    for (let v = version + 1; v <= SCHEMA_VERSION; v++) {
      for (const statement of MIGRATIONS[v - 1]!) await client.query(statement);
      await client.query("INSERT INTO loom_schema_version (version) VALUES ($1)", [v]);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
