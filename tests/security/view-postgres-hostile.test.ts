/**
 * `spell view` and `spell loom view` on a PostgreSQL loom whose rows another writer filled with
 * hostile records (the `record` column is any JSON): script in every field, wrong types, rows
 * that are not objects, deep nesting, control characters and lone surrogates, a flood of
 * entities. The page stays escaped, every answer comes, the process stays up, and the server
 * keeps answering while it reads. Rows go into a fresh database of the test's own server.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loomViewCommand, viewCommand } from "../../src/cli/view.js";
import { postgresLoomStore } from "../../src/loom/postgres/index.js";
import { io } from "../support/io.js";
import { needs } from "../support/needs.js";
import { noPostgres, usePostgres } from "../support/postgres.js";

const server = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "view-pg-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const XSS = `</script><script>alert(1)</script><img src=x onerror=alert(2)><!--`;

const turn = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  parent_id: null,
  cantrip_id: "c1",
  entity_id: `ent_${id}`,
  role: "turn",
  sequence: 1,
  utterance: "u",
  observation: "o",
  gate_calls: [],
  metadata: { intent: "i", timestamp: "2026-01-01T00:00:00Z", duration_ms: 1 },
  reward: null,
  terminated: true,
  truncated: false,
  reason: null,
  ...over,
});

async function hostileDatabase(): Promise<string> {
  const url = await server().createDatabase();
  // The schema, made by the store's first use.
  const store = postgresLoomStore(url);
  await store.append({ type: "turn", ...turn("t_ok"), reward: null } as never);
  await store.close();
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const insert = (id: string, record: unknown, entity = `ent_${id}`, sequence = 1) =>
      client.query(
        "INSERT INTO loom_turns (id, parent_id, entity_id, cantrip_id, sequence, record) VALUES ($1, NULL, $2, 'c1', $3, $4)",
        [id, entity, sequence, typeof record === "string" ? record : JSON.stringify(record)],
      );
    await insert(
      "t_xss",
      turn("t_xss", {
        entity_id: XSS,
        cantrip_id: XSS,
        utterance: XSS,
        observation: XSS,
        reason: XSS,
        gate_calls: [{ gate_name: XSS, arguments: XSS, result: XSS, is_error: false }],
        metadata: { intent: XSS, timestamp: XSS, fork: { from_turn: XSS } },
        llm: { provider: XSS, model: XSS },
      }),
    );
    await insert(
      "t_types",
      turn("t_types", {
        id: { toString: 1 },
        entity_id: ["a"],
        sequence: "x",
        gate_calls: [
          null,
          5,
          "x",
          { gate_name: { a: 1 }, is_error: "yes" },
          { gate_name: { toString: "not a function" } },
        ],
        metadata: null,
        llm: 7,
        reward: "1",
      }),
    );
    await insert(
      "t_proto",
      JSON.parse(
        `{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"id":"t_proto","entity_id":"__proto__","metadata":{"__proto__":{"intent":"x"}}}`,
      ),
    );
    // A turn's row whose JSON says it is a loom header of a newer format: the table's type wins.
    await insert("t_header", { type: "loom", version: 999, id: "t_header" });
    await insert("t_string", `"just a string"`);
    await insert("t_array", `[1,2,3]`);
    await insert("t_number", `42`);
    await insert("t_null", `null`);
    await insert(
      "t_ctrl",
      turn("t_ctrl", { utterance: "a\u0000b\u0007c\u001b[31m\ud800\udfff\ufeff\u2028" }),
    );
    const deep = "[".repeat(3000) + "]".repeat(3000);
    await insert(
      "t_deep",
      `{"type":"turn","id":"t_deep","entity_id":"ent_deep","metadata":${deep}}`,
    );
    await insert("t_big", turn("t_big", { utterance: "x".repeat(6 << 20) }));
    // A flood: 20,000 entities of one turn each.
    await client.query(
      `INSERT INTO loom_turns (id, parent_id, entity_id, cantrip_id, sequence, record)
       SELECT 'f' || g, NULL, 'ent_f' || g, 'c1', 1,
         json_build_object('id', 'f' || g, 'parent_id', null, 'entity_id', 'ent_f' || g,
           'cantrip_id', 'c1', 'sequence', 1, 'utterance', 'u', 'observation', 'o',
           'gate_calls', '[]'::json, 'metadata', json_build_object('intent', 'i'))
       FROM generate_series(1, 20000) g`,
    );
  } finally {
    await client.end();
  }
  return url;
}

needs(noPostgres).describe("spell view on a PostgreSQL loom of hostile rows", () => {
  it("answers everything escaped, stays up, and leaves no prototype polluted", async () => {
    const url = await hostileDatabase();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const out = io();
    const running = viewCommand(url, { port: 0 }, out, stopped, "/* app */");
    let address: string | undefined;
    for (let i = 0; i < 600 && !address; i++) {
      address = /listening on (http:\/\/[^/\s]+)\//.exec(out.err)?.[1];
      if (!address) await new Promise((r) => setTimeout(r, 50));
    }
    try {
      expect(address, out.err).toBeDefined();
      const get = async (path: string) => {
        const started = performance.now();
        const res = await fetch(`${address}${path}`);
        const text = await res.text();
        return { status: res.status, text, ms: performance.now() - started, headers: res.headers };
      };
      const page = await get("/");
      expect(page.status).toBe(200);
      expect(page.text).not.toContain("<script>alert");
      expect(page.headers.get("content-security-policy")).toMatch(/script-src/);
      // Every entity read (the flood too): the index read them all, page by page.
      let stat = JSON.parse((await get("/api/l/0/stat")).text) as {
        turns: number;
        reading: boolean;
      };
      for (let i = 0; i < 600 && (stat.reading || stat.turns < 20_000); i++)
        stat = JSON.parse((await get("/api/l/0/stat")).text) as { turns: number; reading: boolean };
      expect(stat.turns).toBeGreaterThanOrEqual(20_000 + 5);
      expect((stat as { problem?: unknown }).problem).toBeNull();
      // JSON, never HTML a browser would run: the hostile text travels as data.
      for (const path of [
        "/api/sources",
        "/api/l/0/entities",
        "/api/l/0/entities?limit=1000&offset=19000",
        `/api/l/0/e/${encodeURIComponent(XSS)}/thread`,
        "/api/l/0/t/t_ok",
        "/api/l/0/t/t_xss",
        "/api/l/0/t/t_ctrl",
        "/api/l/0/t/t_big",
        "/api/l/0/t/t_proto",
      ]) {
        const r = await get(path);
        expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
        expect(r.headers.get("content-type")).toMatch(/^application\/json/);
        expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      }
      // A record nested 3,000 deep is refused on its own (a clear 500), and the server goes on.
      const deep = await get("/api/l/0/t/t_deep");
      expect([200, 500]).toContain(deep.status);
      expect(deep.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await get("/api/l/0/t/t_ok")).status).toBe(200);
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    } finally {
      stop();
      expect(await running, out.err).toBe(0);
    }
    const html = join(dir, "page.html");
    const viewed = io();
    const code = await loomViewCommand(url, { out: html }, viewed, "/* app */");
    expect(code, viewed.err).toBe(0);
    const written = readFileSync(html, "utf8");
    expect(written).toContain("t_ctrl");
    expect(written).not.toContain("<script>alert");
  }, 120_000);
});
