/**
 * `spell loom thread/reward/view` and `spell view` on a postgres:// URL as on a file: a loom
 * recorded by real casts, imported into a real PostgreSQL (tests/support/postgres.ts), reads
 * back the same; errors are clear and never show the URL's password.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loomExportCommand } from "../../src/cli/loom-export.js";
import { loomImportCommand } from "../../src/cli/loom-import.js";
import { loomRewardCommand, loomThreadCommand } from "../../src/cli/loom-tools.js";
import { loomViewCommand, viewCommand } from "../../src/cli/view.js";
import { postgresLoomStore } from "../../src/loom/postgres/index.js";
import { io } from "../support/io.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { recordTwoCasts } from "../support/recorded-loom.js";
import { needs } from "../support/needs.js";

const server = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "loom-view-pg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A loom file written by real casts (two entities, a reward with a reason), imported to a new database. */
async function both(): Promise<{ file: string; url: string; turns: string[] }> {
  const file = join(dir, `source-${Math.random().toString(36).slice(2)}.jsonl`);
  const turns = await recordTwoCasts(file, "view test");
  const url = await server().createDatabase();
  const imported = io();
  expect(await loomImportCommand(file, { to: url }, imported), imported.err).toBe(0);
  return { file, url, turns };
}

const pageData = (path: string): Record<string, unknown> => {
  const html = readFileSync(path, "utf8");
  const json = /<script id="spell-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1];
  // Where a turn's line lies (`off`, `len`) is a file's alone: a store's turns are read by id.
  const data = JSON.parse(json ?? "null", (key, value: unknown) =>
    key === "off" || key === "len" ? undefined : value,
  ) as Record<string, unknown>;
  delete data["/api/sources"]; // the loom's name: a file name, or the database
  return data;
};

/** A value without a file's offsets (`off`, `len`: where a turn's line lies, a file's alone). */
const withoutOffsets = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, v: unknown) =>
    key === "off" || key === "len" ? undefined : v,
  );

/** `spell view LOOM` on a free port, until `stop`: its answers as JSON. */
async function serving(loom: string) {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const out = io();
  const running = viewCommand(loom, { port: 0 }, out, stopped, "/* app */");
  let ended = false;
  void running.then(() => (ended = true));
  let address: string | undefined;
  for (let i = 0; i < 600 && !address && !ended; i++) {
    address = /listening on (http:\/\/[^/\s]+)\//.exec(out.err)?.[1];
    if (!address) await new Promise((r) => setTimeout(r, 50));
  }
  expect(address, out.err).toBeDefined();
  return {
    err: out.err,
    get: async (path: string): Promise<unknown> => (await fetch(`${address}${path}`)).json(),
    stop: async () => {
      stop();
      expect(await running, out.err).toBe(0);
    },
  };
}

needs(noPostgres).describe(
  "spell loom thread/reward/view and spell view on a PostgreSQL URL",
  () => {
    it("thread gives the trajectory the file gives, in every format", async () => {
      const { file, url, turns } = await both();
      for (const format of ["text", "openai", "anthropic"] as const) {
        const fromFile = io();
        const fromDb = io();
        const flags = { turn: turns[1]!, format, redact: true };
        expect(await loomThreadCommand(file, flags, fromFile), fromFile.err).toBe(0);
        expect(await loomThreadCommand(url, flags, fromDb), fromDb.err).toBe(0);
        expect(fromDb.out).toBe(fromFile.out);
      }
      const unknown = io();
      expect(
        await loomThreadCommand(url, { turn: "turn_nope", format: "text", redact: true }, unknown),
      ).not.toBe(0);
      expect(unknown.err).toContain("no turn turn_nope");
    });

    it("reward appends a reward (with its reason) to a turn of the database; an unknown turn or a bad value writes nothing", async () => {
      const { file, url, turns } = await both();
      const rewarded = io();
      const flags = { turn: turns[3]!, value: "0.5", reason: "half" };
      expect(await loomRewardCommand(url, flags, rewarded), rewarded.err).toBe(0);
      expect(rewarded.out).toContain(`reward 0.5 on ${turns[3]}`);
      const onFile = io();
      expect(await loomRewardCommand(file, flags, onFile), onFile.err).toBe(0);
      expect(rewarded.out).toBe(onFile.out);
      // The record appended is the file's (its time aside).
      const lastOf = (text: string) => {
        const record = JSON.parse(text.trim().split("\n").at(-1)!) as Record<string, unknown>;
        delete record["timestamp"];
        return record;
      };
      const fileExport = io();
      expect(await loomExportCommand(file, { redact: false }, fileExport)).toBe(0);
      const dbExport = io();
      expect(await loomExportCommand(url, { redact: false }, dbExport)).toBe(0);
      expect(lastOf(dbExport.out)).toEqual(lastOf(fileExport.out));
      expect(lastOf(dbExport.out)).toMatchObject({ type: "reward", reward: 0.5, reason: "half" });
      const thread = io();
      expect(
        await loomThreadCommand(url, { turn: turns[3]!, format: "jsonl", redact: true }, thread),
      ).toBe(0);
      const records = async () => {
        const out = io();
        expect(await loomExportCommand(url, { redact: false }, out)).toBe(0);
        return out.out
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      };
      const rewards = (await records()).filter((r) => r["type"] === "reward");
      expect(rewards.map((r) => [r["turn_id"], r["reward"], r["reason"]])).toEqual([
        [turns[1], 1, "right"],
        [turns[3], 0.5, "half"],
      ]);

      const unknown = io();
      expect(await loomRewardCommand(url, { turn: "turn_nope", value: "1" }, unknown)).not.toBe(0);
      expect(unknown.err).toContain("no turn turn_nope in the loom");
      const bad = io();
      expect(await loomRewardCommand(url, { turn: turns[0]!, value: "lots" }, bad)).not.toBe(0);
      expect(bad.err).toContain("reward must be a finite number");
      expect((await records()).filter((r) => r["type"] === "reward")).toHaveLength(2);
    });

    it("loom view writes the page the file gives", async () => {
      const { file, url } = await both();
      const fromFile = join(dir, "file.html");
      const fromDb = join(dir, "db.html");
      const a = io();
      const b = io();
      expect(await loomViewCommand(file, { out: fromFile }, a, "/* app */"), a.err).toBe(0);
      expect(await loomViewCommand(url, { out: fromDb }, b, "/* app */"), b.err).toBe(0);
      expect(pageData(fromDb)).toEqual(pageData(fromFile));
    });

    it("a loom of many pages (read a page at a time) gives the page the file gives", async () => {
      // 700 turns: more than two of the store's pages of records (256 rows each).
      const file = join(dir, "many.jsonl");
      // A loom file of 700 turns, the same imported into a database.
      const lines = [
        JSON.stringify({ type: "loom", version: 3, created: new Date().toISOString() }),
      ];
      for (let i = 1; i <= 700; i++)
        lines.push(
          JSON.stringify({
            type: "turn",
            id: `turn_many_${i}`,
            parent_id: i === 1 ? null : `turn_many_${i - 1}`,
            cantrip_id: "c",
            entity_id: i <= 400 ? "ent_a" : "ent_b",
            role: "turn",
            sequence: i <= 400 ? i : i - 400,
            utterance: `step ${i}`,
            observation: `seen ${i}`,
            gate_calls: [],
            metadata: {
              tokens_prompt: i,
              tokens_completion: 1,
              tokens_cached: 0,
              duration_ms: 1,
              timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString(),
            },
            reward: null,
            terminated: false,
            truncated: false,
            reason: null,
          }),
        );
      writeFileSync(file, `${lines.join("\n")}\n`);
      const url = await server().createDatabase();
      const imported = io();
      expect(await loomImportCommand(file, { to: url }, imported), imported.err).toBe(0);
      const fromFile = join(dir, "many-file.html");
      const fromDb = join(dir, "many-db.html");
      const a = io();
      const b = io();
      expect(await loomViewCommand(file, { out: fromFile }, a, "/* app */"), a.err).toBe(0);
      expect(await loomViewCommand(url, { out: fromDb }, b, "/* app */"), b.err).toBe(0);
      const data = pageData(fromDb);
      expect(data).toEqual(pageData(fromFile));
      expect(data["/api/l/0/stat"]).toMatchObject({ turns: 700, entities: 2 });
    });

    it("spell view serves the database's loom as the file's, live: a turn stored later shows", async () => {
      const { file, url, turns } = await both();
      const fromFile = await serving(file);
      const fromDb = await serving(url);
      try {
        expect(fromDb.err).not.toMatch(/as it was at start/);
        const entities = (await fromDb.get("/api/l/0/entities")) as { rows: { id: string }[] };
        expect(entities.rows).toHaveLength(2);
        expect(entities).toEqual(await fromFile.get("/api/l/0/entities"));
        const entity = encodeURIComponent(entities.rows[0]!.id);
        const thread = (await fromDb.get(`/api/l/0/e/${entity}/thread`)) as {
          rows: { id: string }[];
        };
        expect(thread.rows.map((r) => r.id)).toEqual(turns.slice(0, 2));
        expect(withoutOffsets(thread)).toEqual(
          withoutOffsets(await fromFile.get(`/api/l/0/e/${entity}/thread`)),
        );
        const turn = `/api/l/0/t/${turns[1]}`;
        expect(withoutOffsets(await fromDb.get(turn))).toEqual(
          withoutOffsets(await fromFile.get(turn)),
        );

        // A turn another process stores now appears on the page: no copy taken at start.
        const store = postgresLoomStore(url);
        const last = (await store.turn(turns[3]!))!;
        const later = {
          ...last,
          id: "turn_later",
          parent_id: last.id,
          sequence: last.sequence + 1,
        };
        await store.append({ type: "turn", ...later, reward: null });
        await store.close();
        let stat = (await fromDb.get("/api/l/0/stat")) as { turns: number };
        for (let i = 0; i < 200 && stat.turns === turns.length; i++)
          stat = (await fromDb.get("/api/l/0/stat")) as { turns: number };
        expect(stat.turns).toBe(turns.length + 1);
        expect(await fromDb.get("/api/l/0/t/turn_later")).toMatchObject({
          turn: { id: "turn_later", parent_id: last.id },
        });
      } finally {
        await fromFile.stop();
        await fromDb.stop();
      }
    });

    it("never prints the URL's password, and says what went wrong", async () => {
      const url = (await server().createDatabase()).replace("postgres@", "postgres:s3cretpw@");
      const missing = url.replace(/\/\w+$/, "/nosuchdb");
      const out = io();
      expect(
        await loomThreadCommand(missing, { turn: "t", format: "text", redact: true }, out),
      ).not.toBe(0);
      expect(await loomRewardCommand(missing, { turn: "t", value: "1" }, out)).not.toBe(0);
      expect(await loomViewCommand(missing, { out: join(dir, "x.html") }, out, "")).not.toBe(0);
      expect(await viewCommand(missing, { port: 0 }, out, Promise.resolve(), "")).not.toBe(0);
      expect(out.out + out.err).not.toContain("s3cretpw");
      expect(out.err.match(/nosuchdb/g)?.length).toBeGreaterThanOrEqual(4);
    });
  },
);
