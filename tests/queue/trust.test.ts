// The check a worker makes of every job (src/queue/trust.ts), on real files and symlinks: a spell
// inside the worker's folder runs, one reached through a symlink that leaves it does not.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { QueuedCast } from "../../src/queue/job.js";
import { checkJob, spellsRoot } from "../../src/queue/trust.js";

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
    case: {},
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
    expect(() => checkJob(job(42), real)).toThrow(/absolute path/);
  });

  it("takes memory or a PostgreSQL URL as a job's loom, never a file", () => {
    const spell = join(root, "a.yaml");
    for (const l of [undefined, "memory", "postgres://u@127.0.0.1/db", "postgresql://h/db"])
      expect(() => checkJob(job(spell, l), real)).not.toThrow();
    for (const l of [join(root, "loom.jsonl"), "loom.jsonl", "file:///tmp/x.jsonl", 7])
      expect(() => checkJob(job(spell, l), real), String(l)).toThrow(/not a file/);
  });

  it("refuses a loom URL option that reads a file or names a socket (sslkey=/dev/zero held a worker)", () => {
    const spell = join(root, "a.yaml");
    for (const l of [
      "postgres://u@127.0.0.1/db?sslmode=require&sslkey=/dev/zero",
      "postgres://u@127.0.0.1/db?sslcert=/etc/shadow",
      "postgres://u@127.0.0.1/db?sslrootcert=/dev/zero",
      "postgres://u@127.0.0.1/db?host=/var/run/postgresql",
      "postgres://u@%2Fvar%2Frun%2Fpostgresql/db",
      "postgres://u@[bad/db",
    ])
      expect(() => checkJob(job(spell, l), real), l).toThrow(/queue_job|loom/);
    // What a job may carry: the TLS mode, a name, a timeout (a password, from an older enqueuer).
    for (const l of [
      "postgres://u@127.0.0.1:5432/db?sslmode=require&application_name=evals&connect_timeout=5",
      "postgres://u@db.internal/db?ssl=true",
      "postgres://u:pw@db.internal/db?password=pw",
    ])
      expect(() => checkJob(job(spell, l), real), l).not.toThrow();
  });

  it("a --spells folder that does not exist is refused", () => {
    expect(() => spellsRoot(join(base, "missing"))).toThrow(/no such folder/);
  });
});
