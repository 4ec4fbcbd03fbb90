/**
 * `spell loom import FILE --to postgres://…`, and `spell loom export/tree/stats` on a postgres
 * URL as on a file: a real JSONL loom (a real cast) → PostgreSQL → JSONL gives the same records.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loomExportCommand, loomTreeCommand } from "../../src/cli/loom-export.js";
import { loomImportCommand } from "../../src/cli/loom-import.js";
import { loomStatsCommand } from "../../src/cli/loom-tools.js";
import { forEachLine } from "../../src/loom/jsonl-lines.js";
import { postgresLoomStore } from "../../src/loom/storage-postgres.js";
import { io } from "../support/io.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { recordTwoCasts } from "../support/recorded-loom.js";
import { needs } from "../support/needs.js";

const server = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "loom-cli-pg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A loom file written by real casts: two entities, a reward. */
async function recordedLoom(): Promise<string> {
  const path = join(dir, "source.jsonl");
  await recordTwoCasts(path, "import test");
  return path;
}

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);

needs(noPostgres).describe("spell loom on a PostgreSQL URL", () => {
  it("imports a JSONL loom and exports the same records back (a round trip)", async () => {
    const file = await recordedLoom();
    const url = await server().createDatabase();
    const fromFile = io();
    expect(await loomExportCommand(file, { redact: false }, fromFile)).toBe(0);
    const records = lines(fromFile.out).length;
    const imported = io();
    expect(await loomImportCommand(file, { to: url }, imported), imported.err).toBe(0);
    expect(imported.out).toContain(`imported ${records} records (${records} new)`);
    // Importing again stores nothing twice (appends are idempotent by id).
    const again = io();
    expect(await loomImportCommand(file, { to: url }, again)).toBe(0);
    expect(again.out).toContain(`imported ${records} records (0 new)`);

    const fromDb = io();
    expect(await loomExportCommand(url, { redact: false }, fromDb)).toBe(0);
    expect(lines(fromDb.out)).toEqual(lines(fromFile.out));
    expect(lines(fromDb.out)).toHaveLength(lines(readFileSync(file, "utf8")).length - 1); // header

    const treeFile = io();
    const treeDb = io();
    await loomTreeCommand(file, treeFile);
    expect(await loomTreeCommand(url, treeDb)).toBe(0);
    expect(treeDb.out).toBe(treeFile.out);

    const statsFile = io();
    const statsDb = io();
    await loomStatsCommand(file, { json: true }, statsFile);
    expect(await loomStatsCommand(url, { json: true }, statsDb)).toBe(0);
    expect(JSON.parse(statsDb.out)).toEqual(JSON.parse(statsFile.out));
  });

  it("never prints the URL's password", async () => {
    const file = await recordedLoom();
    const url = await server().createDatabase();
    const withPassword = url.replace("postgres@", "postgres:s3cretpw@");
    const out = io();
    await loomImportCommand(file, { to: withPassword }, out);
    await loomTreeCommand(withPassword.replace(/\/\w+$/, "/nosuchdb"), out);
    expect(out.out + out.err).not.toContain("s3cretpw");
    expect(out.err).toContain("nosuchdb");
  });

  it("never prints a password given in the query (?password=, ?sslpassword=)", async () => {
    const file = await recordedLoom();
    const url = await server().createDatabase();
    const query = "?password=s3cretquery&sslpassword=s3cretssl";
    const out = io();
    await loomImportCommand(file, { to: url + query }, out);
    await loomTreeCommand(url.replace(/\/\w+$/, "/nosuchdb") + query, out);
    await loomTreeCommand(`${url}${query}&nosuchoption=1`, out);
    expect(out.err).toContain("nosuchdb");
    expect(out.out + out.err).not.toContain("s3cret");
  });

  it("exports a PostgreSQL loom bigger than the heap it is given, a page at a time", async () => {
    const url = await server().createDatabase();
    const store = postgresLoomStore(url);
    const big = "w".repeat(1_000_000);
    for (let i = 0; i < 64; i++)
      await store.append({
        type: "turn",
        id: `t${i}`,
        parent_id: null,
        cantrip_id: "c",
        entity_id: "e",
        role: "turn",
        sequence: i + 1,
        utterance: "u",
        observation: "small",
        gate_calls: [{ gate_name: "echo", arguments: "{}", result: big, is_error: false }],
        metadata: {
          tokens_prompt: 0,
          tokens_completion: 0,
          tokens_cached: 0,
          duration_ms: 0,
          timestamp: "t",
        },
        reward: null,
        terminated: false,
        truncated: false,
        reason: null,
      });
    await store.close();
    // The bundle's export in a process whose heap (48 MB) could not hold the 64 MB loom at once.
    const outPath = join(dir, "pg-out.jsonl");
    const out = openSync(outPath, "w");
    const r = spawnSync(
      process.execPath,
      ["--max-old-space-size=48", "bin/run.js", "loom", "export", url],
      { stdio: ["ignore", out, "pipe"], encoding: "utf8" },
    );
    closeSync(out);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const ids: string[] = [];
    forEachLine(outPath, (line) => ids.push((JSON.parse(line) as { id: string }).id));
    expect(ids).toEqual(Array.from({ length: 64 }, (_, i) => `t${i}`));
  }, 120_000);
});
