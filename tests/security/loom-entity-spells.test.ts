/**
 * Migration 2's `loom_entity_spells` (which entities a spell file summoned, for `summon
 * --continue` on a PostgreSQL loom) as an attacker meets it: spell keys holding quotes and SQL
 * (they travel as parameters, never as SQL text), a database at migration 1 that already holds
 * a loom (migrated in place, nothing lost), first uses racing to migrate, and two summons
 * noting the same entity at once. Every database is a fresh one of the test's own server.
 */
import { expect, it } from "vitest";
import { postgresLoomStore, SCHEMA_VERSION } from "../../src/loom/postgres/index.js";
import { MIGRATIONS } from "../../src/loom/postgres/postgres-schema.js";
import { turn } from "../loom/store-contract.js";
import { needs } from "../support/needs.js";
import { noPostgres, sql, usePostgres } from "../support/postgres.js";

const server = usePostgres();

needs(noPostgres).describe("loom_entity_spells on a real PostgreSQL", () => {
  it("a spell key of quotes and SQL is a key like any other: stored, found, nothing run", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    const hostile = [
      `/tmp/it's.yaml`,
      `/tmp/x'); DROP TABLE loom_turns; --.yaml`,
      `/tmp/"quoted" \\ back\\slash $1 $$dollar$$.yaml`,
      `/tmp/%_wild*card?.yaml`,
    ];
    try {
      await store.append({ type: "turn", ...turn("t1", null) });
      for (const [i, spell] of hostile.entries()) await store.noteEntitySpell(`ent_${i}`, spell);
      for (const [i, spell] of hostile.entries())
        expect(await store.entitiesOfSpell(spell)).toEqual([`ent_${i}`]);
      // A LIKE pattern is not a key: nothing of another spell is found by wildcards.
      expect(await store.entitiesOfSpell("/tmp/%")).toEqual([]);
      expect(await store.readEntity("e1")).toHaveLength(1); // loom_turns still there
    } finally {
      await store.close();
    }
  });

  it("an entity another spell summoned stays that spell's when a summon notes it again", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    try {
      await store.noteEntitySpell("ent_a", "/work/a.yaml");
      await store.noteEntitySpell("ent_a", "/work/b.yaml"); // `--entity ent_a` from b.yaml
      expect(await store.entitiesOfSpell("/work/a.yaml")).toEqual(["ent_a"]);
      expect(await store.entitiesOfSpell("/work/b.yaml")).toEqual([]);
      // Two summons noting at once: one row, no error.
      await Promise.all(
        Array.from({ length: 8 }, () => store.noteEntitySpell("ent_c", "/work/c.yaml")),
      );
      expect(await store.entitiesOfSpell("/work/c.yaml")).toEqual(["ent_c"]);
    } finally {
      await store.close();
    }
  });

  it("a database at migration 1 with a loom is taken to the current version in place; racing first uses migrate once", async () => {
    const url = await server().createDatabase();
    // Migration 1 as a build of that version left it, with a turn and a reward in it.
    await sql(
      url,
      "CREATE TABLE loom_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    for (const statement of MIGRATIONS[0]!) await sql(url, statement);
    await sql(url, "INSERT INTO loom_schema_version (version) VALUES (1)");
    const old = turn("t_old", null, "e_old");
    await sql(
      url,
      "INSERT INTO loom_turns (id, parent_id, entity_id, cantrip_id, sequence, record) VALUES ($1, NULL, $2, 'c1', 1, $3)",
      ["t_old", "e_old", JSON.stringify(old)],
    );
    // Four first users at once: one migrates, the others wait on its lock and find it done.
    const stores = Array.from({ length: 4 }, () => postgresLoomStore(url));
    try {
      const read = await Promise.all(stores.map((s) => s.readEntity("e_old")));
      for (const turns of read) expect(turns.map((t) => t.id)).toEqual(["t_old"]);
      await stores[0]!.noteEntitySpell("e_old", "/work/old.yaml");
      expect(await stores[1]!.entitiesOfSpell("/work/old.yaml")).toEqual(["e_old"]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    const versions = await sql(url, "SELECT version FROM loom_schema_version ORDER BY version");
    expect(versions.map((r) => r["version"])).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
    // And once more: a database at the current version is left as it is.
    const again = postgresLoomStore(url);
    try {
      expect(await again.entitiesOfSpell("/work/old.yaml")).toEqual(["e_old"]);
    } finally {
      await again.close();
    }
    expect(await sql(url, "SELECT count(*)::int AS n FROM loom_schema_version")).toEqual([
      { n: SCHEMA_VERSION },
    ]);
  });
});
