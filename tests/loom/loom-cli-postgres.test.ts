/**
 * `spell loom import FILE --to postgres://…`, and `spell loom export/tree/stats/otel` on a
 * postgres URL as on a file: a real JSONL loom (a real cast) → PostgreSQL → JSONL gives the same
 * records, and each command the same output.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loomExportCommand, loomTreeCommand } from "../../src/cli/loom-export.js";
import { loomForkCommand } from "../../src/cli/loom-fork.js";
import { loomImportCommand } from "../../src/cli/loom-import.js";
import { runCommand } from "../../src/cli/run.js";
import { loomStatsCommand } from "../../src/cli/loom-tools.js";
import { runSummon } from "../../src/cli/summon.js";
import { loomOtelCommand } from "../../src/cli/otel/loom-otel.js";
import { otlpReceiver, type OtlpSpan } from "../otel/receiver.js";
import { forEachLine } from "../../src/loom/jsonl/index.js";
import { postgresLoomStore } from "../../src/loom/postgres/index.js";
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

/** An entity's turns as `loom export` gives them, from either store. */
async function turnsOf(loom: string, entity: string) {
  const out = io();
  expect(await loomExportCommand(loom, { redact: false }, out)).toBe(0);
  return lines(out.out).filter(
    (r) =>
      (r as { type: string }).type === "turn" && (r as { entity_id: string }).entity_id === entity,
  ) as { id: string; parent_id: string | null; sequence: number }[];
}

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

  it("otel sends the spans of a PostgreSQL loom that the file's give", async () => {
    const file = await recordedLoom();
    const url = await server().createDatabase();
    expect(await loomImportCommand(file, { to: url }, io())).toBe(0);
    const spansOf = async (loom: string) => {
      const receiver = await otlpReceiver();
      try {
        const out = io();
        expect(await loomOtelCommand(loom, { to: receiver.url, name: "cast" }, out), out.err).toBe(
          0,
        );
        // Ids are new at each send: a span is known by its name, times and parent's name.
        const spans = receiver.spans();
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        const shape = (s: OtlpSpan) => [
          s.name,
          s.startTimeUnixNano,
          s.endTimeUnixNano,
          byId.get(s.parentSpanId ?? "")?.name,
        ];
        return { err: out.err.replace(receiver.url, "URL"), spans: spans.map(shape).sort() };
      } finally {
        await receiver.close();
      }
    };
    const fromFile = await spansOf(file);
    const fromDb = await spansOf(url);
    expect(fromFile.spans.length).toBeGreaterThan(2);
    expect(fromDb).toEqual(fromFile);
  });

  it("summon --entity continues an entity of a PostgreSQL loom as of a file: its thread read back", async () => {
    const spell = join(dir, "summoned.yaml");
    writeFileSync(
      spell,
      `llm: { provider: scripted, responses: [{ content: "hello back" }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
    );
    const session = async (loom: string, entity?: string) => {
      const o = io();
      const input = Readable.from(["say hello\n"]);
      const flags = { loom, ...(entity === undefined ? {} : { entity }) };
      const code = await runSummon(spell, flags, { ...o, input });
      expect(code, o.err).toBe(0);
      return { err: o.err, id: /(?:summoned|resumed) entity (ent_[\w-]+)/.exec(o.err)?.[1] };
    };
    const url = await server().createDatabase();
    const file = join(dir, "summoned.jsonl");
    for (const loom of [file, url]) {
      const first = await session(loom);
      const again = await session(loom, first.id);
      expect(again.id).toBe(first.id);
      expect(again.err).toMatch(/resumed entity ent_[\w-]+ \(1 earlier turn\)/);
      const turns = await turnsOf(loom, first.id!);
      expect(turns.map((t) => t.sequence)).toEqual([1, 2]);
      expect(turns[1]!.parent_id).toBe(turns[0]!.id);
    }
  });

  it("summon --continue goes on with the spell's last entity on a PostgreSQL loom as on a file", async () => {
    const spell = join(dir, "continued.yaml");
    writeFileSync(
      spell,
      `llm: { provider: scripted, responses: [{ content: "hello back" }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
    );
    const session = async (loom: string) => {
      const o = io();
      const input = Readable.from(["say hello\n"]);
      const code = await runSummon(spell, { loom, continue: true }, { ...o, input });
      expect(code, o.err).toBe(0);
      const id = /(?:summoned|resumed) entity (ent_[\w-]+)/.exec(o.err)?.[1];
      // What the session says of its entity, with what differs between looms (ids, locations)
      // taken out (the progress lines between carry timings).
      const shape = o.err
        .split("\n")
        .filter((l) => /^(no earlier|summoned|resumed|session ended)/.test(l))
        .map((l) => l.replaceAll(loom, "LOOM").replaceAll(id ?? "-", "ENT"));
      return { err: o.err, id, shape };
    };
    const url = await server().createDatabase();
    const file = join(dir, "continued.jsonl");
    const shapes: string[][][] = [];
    for (const loom of [file, url]) {
      const first = await session(loom);
      expect(first.err).toContain(`no earlier entity of ${spell}`);
      const again = await session(loom);
      expect(again.id).toBe(first.id);
      expect(again.err).toMatch(/resumed entity ent_[\w-]+ \(1 earlier turn\)/);
      expect(again.err).not.toContain("no earlier entity");
      const turns = await turnsOf(loom, first.id!);
      expect(turns.map((t) => t.sequence)).toEqual([1, 2]);
      expect(turns[1]!.parent_id).toBe(turns[0]!.id);
      shapes.push([first.shape, again.shape]);
    }
    expect(shapes[0]![1]).toContain("resumed entity ENT (1 earlier turn) · loom LOOM");
    expect(shapes[1]).toEqual(shapes[0]);
  });

  it("fork forks an entity of a PostgreSQL loom from a turn, with the spell its summon recorded there", async () => {
    const spell = join(dir, "forked.yaml");
    writeFileSync(
      spell,
      `llm: { provider: scripted, cycle: true, responses: [{ tool_calls: [{ gate: done, args: { answer: forked } }] }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
    );
    const url = (await server().createDatabase()).replace("postgres@", "postgres:s3cretpw@");
    const summoned = io();
    const input = Readable.from(["say hello\n"]);
    expect(await runSummon(spell, { loom: url }, { ...summoned, input }), summoned.err).toBe(0);
    const id = /summoned entity (ent_[\w-]+)/.exec(summoned.err)![1]!;
    const [first] = await turnsOf(url, id);
    const forked = io();
    const flags = { turn: "1", intent: "again", json: true, quiet: true };
    expect(await loomForkCommand(url, flags, forked), forked.err).toBe(0);
    const line = JSON.parse(forked.out) as {
      entity_id: string;
      from_turn_id: string;
      result: string;
    };
    expect(line.from_turn_id).toBe(first!.id);
    expect(line.result).toBe("forked");
    expect(line.entity_id).not.toBe(id);
    const turns = await turnsOf(url, line.entity_id);
    expect(turns[0]!.parent_id).toBe(first!.id);

    // An entity no summon noted (a run): named, with --spell as the way on.
    const ran = io();
    expect(await runCommand(spell, { loom: url, quiet: true, intent: "hi" }, ran), ran.err).toBe(0);
    const all = io();
    expect(await loomExportCommand(url, { redact: false }, all)).toBe(0);
    const ranTurn = lines(all.out).find(
      (r) =>
        (r as { type: string }).type === "turn" &&
        ![id, line.entity_id].includes((r as { entity_id: string }).entity_id),
    ) as { id: string };
    const refused = io();
    expect(await loomForkCommand(url, { turn: ranTurn.id, quiet: true }, refused)).not.toBe(0);
    expect(refused.err).toMatch(
      /no spell is recorded for entity ent_[\w-]+ in loom .*--spell FILE/,
    );
    const given = io();
    const withSpell = { turn: ranTurn.id, spell, quiet: true };
    expect(await loomForkCommand(url, withSpell, given), given.err).toBe(0);
    expect(given.out).toMatch(/^ent_[\w-]+ · from /);
    for (const o of [summoned, forked, ran, refused, given])
      expect(o.out + o.err).not.toContain("s3cretpw");
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
