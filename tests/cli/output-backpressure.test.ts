import { spawn } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as wait } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { EXIT, type CliIO } from "../../src/cli/io.js";
import { loomExportCommand, loomTreeCommand } from "../../src/cli/loom-export.js";
import { runCommand } from "../../src/cli/run.js";
import { Loom } from "../../src/loom/core/index.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import { onlyWhere } from "../support/needs.js";

/**
 * Bounded memory on the way out (issue 20): a command that prints a lot waits while its reader
 * is slow (back-pressure on stdout) instead of buffering everything it has to say.
 */
const dir = mkdtempSync(join(tmpdir(), "backpressure-"));
const bin = join(import.meta.dirname, "..", "..", "bin", "run.js");

/** A loom of `turns` chained turns of ~2 KB each; turn ids turn_0 … turn_{n-1}. */
function writeLoom(name: string, turns: number): string {
  const path = join(dir, name);
  const loom = new Loom(new JsonlStore(path));
  const head = {
    id: "",
    parentId: null as string | null,
    cantripId: "c",
    entityId: "e",
    sequence: 0,
  };
  const cost = {
    usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
    durationMs: 1,
    extra: undefined,
  };
  const pad = "x".repeat(2000);
  for (let i = 0; i < turns; i++) {
    head.id = `turn_${i}`;
    head.parentId = i ? `turn_${i - 1}` : null;
    head.sequence = i + 1;
    const content = { utterance: `u${i} ${pad}`, observation: `o${i}`, gateCalls: [] };
    loom.recordTurn(head, content, cost, { kind: "continue" });
  }
  loom.close();
  return path;
}

/**
 * A stdout that holds up to `limit` characters and then says so, as a pipe whose reader is slow
 * does: `drain` resolves once a later macrotask has "read" what it holds. `overruns` counts
 * writes made while it was full (what back-pressure forbids).
 */
function slowSink(
  limit: number,
): CliIO & { out: string; err: string; overruns: number; drained: number } {
  let held = 0;
  const o = { out: "", err: "", env: {}, cwd: process.cwd(), overruns: 0, drained: 0 } as CliIO & {
    out: string;
    err: string;
    overruns: number;
    drained: number;
  };
  o.stdout = (t) => {
    if (held >= limit) o.overruns++;
    held += t.length;
    o.out += t;
  };
  o.stderr = (t) => void (o.err += t);
  o.drain = () =>
    held < limit
      ? Promise.resolve(true)
      : new Promise((resolve) =>
          setImmediate(() => {
            held = 0;
            o.drained++;
            resolve(true);
          }),
        );
  return o;
}

describe("commands that print a lot respect back-pressure", () => {
  const loom = writeLoom("medium.jsonl", 2_000);

  it("spell loom export writes no more while stdout is full", async () => {
    const o = slowSink(16 * 1024);
    expect(await loomExportCommand(loom, { redact: true }, o)).toBe(EXIT.ok);
    expect(o.overruns).toBe(0);
    expect(o.drained).toBeGreaterThan(100);
    const ids = o.out
      .trimEnd()
      .split("\n")
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual(Array.from({ length: 2_000 }, (_, i) => `turn_${i}`));
  });

  it("spell loom tree writes no more while stdout is full", async () => {
    const o = slowSink(4 * 1024);
    expect(await loomTreeCommand(loom, o)).toBe(EXIT.ok);
    expect(o.overruns).toBe(0);
    const lines = o.out.trimEnd().split("\n");
    expect(lines).toHaveLength(2_001); // every turn, then the line of totals
    expect(lines.at(-1)).toMatch(/^total: 2000 turns · /);
  });

  it("spell run --json returns only once stdout has taken the result", async () => {
    const spell = join(dir, "big.yaml");
    writeFileSync(
      spell,
      `llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: '${"y".repeat(100_000)}' } }] }] }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\nintent: go\n`,
    );
    const o = slowSink(1024);
    expect(await runCommand(spell, { json: true, loom: "memory" }, o)).toBe(EXIT.ok);
    expect(o.drained).toBe(1); // the command waited for its reader before it returned
    expect((JSON.parse(o.out) as { result: string }).result).toHaveLength(100_000);
  });
});

/** Where process `pid` has read the file `path` up to; null when it does not hold it open. */
function readOffset(pid: number, path: string): number | null {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target !== path) continue;
    const pos = /^pos:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"));
    return pos ? Number(pos[1]) : null;
  }
  return null;
}

onlyWhere(process.platform === "linux" ? undefined : "needs Linux's /proc").describe(
  "spell loom export into a pipe (Linux: /proc)",
  () => {
    it("reads the loom no further ahead than its reader, and the output is whole", async () => {
      const turns = 15_000; // ~33 MB
      const loom = writeLoom("big.jsonl", turns);
      const size = statSync(loom).size;
      const child = spawn(process.execPath, [bin, "loom", "export", loom], {
        env: { PATH: process.env["PATH"] ?? "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let err = "";
      child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      const chunks: Buffer[] = [];
      // Read the first piece, then stop reading: the pipe fills and the exporter must wait.
      const first = await new Promise<Buffer>((resolve) => child.stdout.once("data", resolve));
      chunks.push(first);
      child.stdout.pause();
      // For two seconds of not reading, the exporter stays within a few MB of what was read
      // (the pipe's 64 KiB, its own small buffer and the 1 MiB read chunk). Without back-pressure
      // it reads (and holds) the whole loom at once.
      const bound = 8 * 1024 * 1024;
      const highest: number[] = [];
      for (let i = 0; i < 20; i++) {
        const at = readOffset(child.pid!, loom);
        highest.push(at ?? size); // a closed file: read to its end
        await wait(100);
      }
      expect(Math.max(...highest), `read ${Math.max(...highest)} of ${size} bytes`).toBeLessThan(
        bound,
      );
      child.stdout.on("data", (c: Buffer) => chunks.push(c));
      child.stdout.resume();
      expect(await exited).toBe(0);
      expect(err).toBe("");
      const lines = Buffer.concat(chunks).toString("utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(turns);
      lines.forEach((line, i) => expect((JSON.parse(line) as { id: string }).id).toBe(`turn_${i}`));
    }, 120_000);

    it("a reader taking one piece at a time keeps it a few MB ahead at every piece, in a 48 MB heap", async () => {
      const turns = 15_000; // ~33 MB
      const loom = writeLoom("slow.jsonl", turns);
      const child = spawn(
        process.execPath,
        ["--max-old-space-size=48", bin, "loom", "export", loom],
        {
          env: { PATH: process.env["PATH"] ?? "", NODE_ENV: "test" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let err = "";
      child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      // Each piece is taken only after the reader has looked where the exporter is in the loom,
      // and the next only on a later turn of the event loop: however slow or fast that is, the
      // exporter may be ahead by the pipe, its own buffer and one read chunk, never more.
      const chunks: Buffer[] = [];
      let taken = 0;
      let ahead = 0;
      child.stdout.on("data", (c: Buffer) => {
        chunks.push(c);
        taken += c.length;
        const at = readOffset(child.pid!, loom);
        if (at !== null) ahead = Math.max(ahead, at - taken);
        child.stdout.pause();
        setImmediate(() => child.stdout.resume());
      });
      expect(await exited).toBe(0);
      expect(err).toBe("");
      expect(ahead, `the exporter was ${ahead} bytes ahead of its reader`).toBeLessThan(
        8 * 1024 * 1024,
      );
      const lines = Buffer.concat(chunks).toString("utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(turns);
    }, 120_000);
  },
);
