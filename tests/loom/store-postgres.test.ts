/**
 * The PostgreSQL loom store against a real server on loopback (tests/support/postgres.ts): the
 * store contract, fencing by (entity, sequence), versioned migrations, many writers at once.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { postgresLoomStore } from "../../src/loom/postgres/index.js";
import { SCHEMA_VERSION } from "../../src/loom/postgres/index.js";
import { noPostgres, sql, usePostgres } from "../support/postgres.js";
import { loomStoreContract, turn } from "./store-contract.js";
import { needs } from "../support/needs.js";

const server = usePostgres();

needs(noPostgres).describe("PostgreSQL loom store (real server)", () => {
  loomStoreContract("PostgreSQL", async () => {
    const url = await server().createDatabase();
    return {
      store: postgresLoomStore(url),
      reopen: () => Promise.resolve(postgresLoomStore(url)),
    };
  });

  it("refuses a different turn at a taken (entity, sequence): loom_fenced, the first stays", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    try {
      await store.append({ type: "turn", ...turn("t1", null, "e1", 1) });
      await store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) });
      const late = { ...turn("t2-late", "t1", "e1", 2), utterance: "a late writer" };
      await expect(store.append({ type: "turn", ...late })).rejects.toMatchObject({
        code: "loom_fenced",
      });
      // The same turn sent again (a retry) is not a fence: idempotent, false.
      expect(await store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) })).toBe(false);
      const turns = await store.readEntity("e1");
      expect(turns.map((t) => [t.id, t.sequence])).toEqual([
        ["t1", 1],
        ["t2", 2],
      ]);
    } finally {
      await store.close();
    }
  });

  it("migrates on first use and records the schema version", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    await store.append({ type: "turn", ...turn("t1", null) });
    await store.close();
    const rows = await sql(url, "SELECT max(version) AS v FROM loom_schema_version");
    expect(rows[0]!.v).toBe(SCHEMA_VERSION);
  });

  it("refuses a schema newer than it knows, with a clear error, and writes nothing", async () => {
    const url = await server().createDatabase();
    const first = postgresLoomStore(url);
    await first.append({ type: "turn", ...turn("t1", null) });
    await first.close();
    await sql(url, "INSERT INTO loom_schema_version (version) VALUES ($1)", [SCHEMA_VERSION + 1]);
    const before = await sql(url, "SELECT count(*)::int AS n FROM loom_turns");
    const store = postgresLoomStore(url);
    try {
      const refused = store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) });
      await expect(refused).rejects.toMatchObject({ code: "loom_schema" });
      await expect(refused).rejects.toThrow(`schema version ${SCHEMA_VERSION + 1}`);
    } finally {
      await store.close();
    }
    expect(await sql(url, "SELECT count(*)::int AS n FROM loom_turns")).toEqual(before);
  });

  it("takes many writers at once: two pools interleaving appends, no loss, no duplicate", async () => {
    const url = await server().createDatabase();
    const a = postgresLoomStore(url);
    const b = postgresLoomStore(url);
    const per = 60;
    const write = (store: typeof a, entity: string) =>
      Promise.all(
        Array.from({ length: per }, (_, i) =>
          store.append({
            type: "turn",
            ...turn(`${entity}-${i + 1}`, i ? `${entity}-${i}` : null, entity, i + 1),
          }),
        ),
      );
    try {
      // Each writer also retries the other's first ten turns (a duplicate delivery).
      const retries = (store: typeof a, entity: string) =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.append({
              type: "turn",
              ...turn(`${entity}-${i + 1}`, i ? `${entity}-${i}` : null, entity, i + 1),
            }),
          ),
        );
      await Promise.all([write(a, "x"), write(b, "y"), retries(a, "y"), retries(b, "x")]);
      const rows = await sql(url, "SELECT count(*)::int AS n FROM loom_turns");
      expect(rows[0]!.n).toBe(2 * per);
      const thread = await a.readThread(`y-${per}`);
      expect(thread.map((t) => t.sequence)).toEqual(Array.from({ length: per }, (_, i) => i + 1));
      expect((await b.listEntities()).map((e) => e.turns).sort()).toEqual([per, per]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a settled read holds back what follows a place still being written, and reads it later: a late commit is not passed over", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    const ids = async (from: number, settled: boolean) => {
      const seen: string[] = [];
      let next = from;
      for await (const page of store.recordPages(from, { settled })) {
        for (const r of page.records) seen.push(r.type === "turn" ? r.id : r.type);
        next = page.next;
      }
      return { seen, next };
    };
    const late = new pg.Client({ connectionString: url });
    try {
      await store.append({ type: "turn", ...turn("t1", null, "e1", 1) });
      const start = await ids(0, true);
      expect(start.seen).toEqual(["t1"]);
      // Another writer takes the next place and has not committed when a later turn does.
      await late.connect();
      await late.query("BEGIN");
      await late.query(
        "INSERT INTO loom_turns (id, parent_id, entity_id, cantrip_id, sequence, record) VALUES ($1, $2, $3, $4, $5, $6)",
        ["t2", "t1", "e1", "c1", 2, JSON.stringify(turn("t2", "t1", "e1", 2))],
      );
      await store.append({ type: "turn", ...turn("u1", null, "e2", 1) });
      // A plain read gives what is committed; a settled one stops before the open place.
      expect((await ids(start.next, false)).seen).toEqual(["u1"]);
      const held = await ids(start.next, true);
      expect(held).toEqual({ seen: [], next: start.next });
      await late.query("COMMIT");
      const after = await ids(held.next, true);
      expect(after.seen).toEqual(["t2", "u1"]);
      // A place whose write rolled back is a gap for good: passed once that write has ended.
      await late.query("BEGIN");
      await late.query(
        "INSERT INTO loom_turns (id, parent_id, entity_id, cantrip_id, sequence, record) VALUES ($1, $2, $3, $4, $5, $6)",
        ["gone", "t2", "e1", "c1", 3, JSON.stringify(turn("gone", "t2", "e1", 3))],
      );
      await store.append({ type: "turn", ...turn("u2", "u1", "e2", 2) });
      expect((await ids(after.next, true)).seen).toEqual([]);
      await late.query("ROLLBACK");
      expect((await ids(after.next, true)).seen).toEqual(["u2"]);
    } finally {
      await late.end();
      await store.close();
    }
  });

  it("retries an append whose connection is dropped (pg_terminate_backend): nothing torn or doubled", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    const n = 120;
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    let kills = 0;
    const terminate = async () => {
      const rows = await killer.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      kills += rows.rows.filter((r) => r.ok).length;
    };
    const expected = (entity: string, i: number) => ({
      ...turn(`${entity}-${i}`, i > 1 ? `${entity}-${i - 1}` : null, entity, i),
      utterance: `${"x".repeat(2000)} ${entity} ${i}`,
    });
    try {
      await store.append({ type: "turn", ...expected("w0", 1) }); // migrated, pool open
      // Three writers append at once; after every 15th append, the store's connections are cut.
      const writer = async (entity: string, from: number) => {
        for (let i = from; i <= n; i++) {
          await store.append({ type: "turn", ...expected(entity, i) });
          if (i % 15 === 0) await terminate();
        }
      };
      await Promise.all([writer("w0", 2), writer("w1", 1), writer("w2", 1)]);
      expect(kills).toBeGreaterThan(0);
      const rows = await killer.query<{ id: string; record: unknown }>(
        "SELECT id, record FROM loom_turns ORDER BY entity_id, sequence",
      );
      expect(rows.rows).toHaveLength(3 * n);
      for (const entity of ["w0", "w1", "w2"])
        for (let i = 1; i <= n; i++) {
          const row = rows.rows.find((r) => r.id === `${entity}-${i}`);
          expect(row?.record).toEqual(expected(entity, i));
        }
      const thread = await store.readThread(`w2-${n}`);
      expect(thread).toHaveLength(n);
    } finally {
      await killer.end();
      await store.close();
    }
  });

  it("never names the password of its URL (location, errors)", async () => {
    const port = server().port;
    const store = postgresLoomStore(`postgres://postgres:hunter2secret@127.0.0.1:${port}/nosuchdb`);
    expect(store.location).not.toContain("hunter2secret");
    const failed = await store.append({ type: "turn", ...turn("t1", null) }).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(String((failed as Error).message)).not.toContain("hunter2secret");
    expect(JSON.stringify(failed)).not.toContain("hunter2secret");
    await store.close();
  });
});
