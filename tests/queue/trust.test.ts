// The check a worker makes of every job (src/queue/trust.ts), on real files and symlinks: a spell
// inside the worker's folder runs, one reached through a symlink that leaves it does not; a job
// records only to the worker's own loom or memory.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { QueuedCast } from "../../src/queue/job.js";
import { checkJob, spellsRoot, workerLoomFor } from "../../src/queue/trust.js";

const base = mkdtempSync(join(tmpdir(), "queue-trust-unit-"));
const root = join(base, "spells");
const outside = join(base, "elsewhere");
mkdirSync(join(root, "sub"), { recursive: true });
mkdirSync(outside);
for (const f of [join(root, "a.yaml"), join(root, "sub", "b.yaml"), join(root, "..x.yaml")])
  writeFileSync(f, "");
writeFileSync(join(outside, "evil.yaml"), "");
symlinkSync(join(outside, "evil.yaml"), join(root, "link.yaml"));
symlinkSync(outside, join(root, "out"));

const job = (spell: unknown, loom?: unknown) =>
  ({
    spell,
    loom,
    llm: undefined,
    case: { id: "c1", intent: "hi", expect: [], location: "eval.yaml:1" },
    repeat: 0,
    entityId: "ent_1",
  }) as unknown as QueuedCast;
const real = spellsRoot(root);

describe("checkJob", () => {
  it("runs spells inside the folder, names starting with .. included", () => {
    for (const s of ["a.yaml", "sub/b.yaml", "..x.yaml"])
      expect(() => checkJob(job(join(root, s)), real)).not.toThrow();
  });

  it("refuses a spell outside, through .., through a symlink, or not absolute", () => {
    for (const s of [
      join(outside, "evil.yaml"),
      join(root, "..", "elsewhere", "evil.yaml"),
      join(root, "link.yaml"),
      join(root, "out", "evil.yaml"),
    ])
      expect(() => checkJob(job(s), real), s).toThrow(/outside the folder/);
    expect(() => checkJob(job("a.yaml"), real)).toThrow(/absolute path/);
    expect(() => checkJob(job(42), real)).toThrow(/its spell is 42, not a file's path/);
  });

  it("takes the worker's own loom or memory as a job's loom, never a file or another database", () => {
    const own = "postgres://u:pw@127.0.0.1:5432/db?sslmode=require";
    for (const l of [
      undefined,
      "postgres://u@127.0.0.1:5432/db",
      "postgresql://u@127.0.0.1:5432/db",
    ])
      expect(workerLoomFor(l, own), String(l)).toBe(own);
    expect(workerLoomFor("memory", own)).toBe("memory");
    expect(workerLoomFor("memory", undefined)).toBe("memory");
    for (const l of [join(root, "loom.jsonl"), "loom.jsonl", "file:///tmp/x.jsonl"])
      expect(() => workerLoomFor(l, own), l).toThrow(/never a file or another database/);
    // Any other database: refused whatever the worker's own loom is (a job chose the host).
    for (const l of [
      "postgres://u@127.0.0.1:5433/db",
      "postgres://u@db.elsewhere:5432/db",
      "postgres://u@%2Fvar%2Frun%2Fpostgresql/db",
      "postgres://u@[bad/db",
    ])
      for (const mine of [own, undefined, join(root, "own.jsonl")])
        expect(() => workerLoomFor(l, mine), `${l} on ${mine}`).toThrow(
          /only this worker's own loom/,
        );
  });

  it("a job naming the worker's database with options of its own gets the worker's URL", () => {
    const own = "postgres://u:pw@127.0.0.1:5432/db";
    for (const l of [
      "postgres://u@127.0.0.1:5432/db?sslmode=require&sslkey=/dev/zero",
      "postgres://u@127.0.0.1:5432/db?host=/var/run/postgresql",
      "postgres://u@127.0.0.1:5432/db?host=evil.example&port=1",
      "postgres://u:job-pw@127.0.0.1:5432/db?password=pw",
    ])
      expect(workerLoomFor(l, own), l).toBe(own);
  });

  it("a job whose data is no cast is refused before any field is read", () => {
    for (const data of [null, 7, "x", [], {}, { spell: join(root, "a.yaml") }])
      expect(() => checkJob(data, real), JSON.stringify(data)).toThrow(
        /^a queued job is not a cast/,
      );
  });

  it("a --spells folder that does not exist is refused", () => {
    expect(() => spellsRoot(join(base, "missing"))).toThrow(/no such folder/);
  });
});
