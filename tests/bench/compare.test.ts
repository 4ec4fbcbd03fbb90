// The bench comparison (bench/compare.mjs, issue 39) on fixed runs: a row's ratio to the
// recorded run, its spread, and when it is flagged. No timing here: the benches themselves stay
// out of `npm test`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  compareRuns,
  DEFAULT_TOLERANCE,
  formatComparison,
  judge,
  toleranceArg,
  type BenchRow,
  type BenchRun,
} from "../../bench/compare.mjs";

const dir = mkdtempSync(join(tmpdir(), "bench-compare-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A paired ratio row, lower is better, over 5 rounds. */
const ratioRow = (name: string, min: number, value: number, max: number, extra = {}): BenchRow => ({
  bench: "loop",
  name,
  value,
  min,
  max,
  rounds: 5,
  unit: "×",
  better: "lower",
  paired: true,
  ...extra,
});

describe("judge: one row against its recorded self", () => {
  const recorded = ratioRow("engine/floor", 2.6, 2.8, 3.2);

  it("flags a row whose whole new range lies above the recorded max times the tolerance", () => {
    // 3.2 × 1.1 = 3.52: the new min 3.6 is beyond it
    expect(judge(recorded, ratioRow("engine/floor", 3.6, 3.9, 4.4))).toBe("worse");
  });

  it("does not flag a worse median whose range still reaches into the tolerance", () => {
    expect(judge(recorded, ratioRow("engine/floor", 3.4, 3.9, 4.4))).toBe("same");
    expect(judge(recorded, ratioRow("engine/floor", 2.0, 4.5, 9.0))).toBe("same");
  });

  it("the tolerance moves the line", () => {
    const now = ratioRow("engine/floor", 3.4, 3.9, 4.4);
    expect(judge(recorded, now, 0)).toBe("worse");
    expect(judge(recorded, now, 0.1)).toBe("same");
    expect(DEFAULT_TOLERANCE).toBe(0.1);
  });

  it("says better when the whole range lies below the recorded min divided by the tolerance", () => {
    expect(judge(recorded, ratioRow("engine/floor", 1.5, 1.8, 2.3))).toBe("better");
    expect(judge(recorded, ratioRow("engine/floor", 1.5, 1.8, 2.4))).toBe("same");
  });

  it("for a higher-is-better row, worse is a new max below the recorded min", () => {
    const higher = { better: "higher" as const };
    const was = ratioRow("rate", 100, 110, 120, higher);
    expect(judge(was, ratioRow("rate", 70, 80, 90, higher))).toBe("worse"); // 90 < 100 / 1.1
    expect(judge(was, ratioRow("rate", 70, 80, 95, higher))).toBe("same");
    expect(judge(was, ratioRow("rate", 140, 150, 160, higher))).toBe("better"); // 140 > 132
  });

  it("never flags a row that is not a paired ratio over ≥ 3 rounds with a direction", () => {
    const far = ratioRow("x", 30, 40, 50);
    expect(judge({ ...recorded, paired: false }, { ...far, paired: false })).toBe("info");
    expect(judge(recorded, { ...far, paired: false })).toBe("info");
    expect(judge({ ...recorded, rounds: 2 }, far)).toBe("info");
    expect(judge(recorded, { ...far, rounds: 2 })).toBe("info");
    const { min: _min, max: _max, ...single } = far;
    expect(judge(recorded, single)).toBe("info");
    const { better: _better, ...undirected } = recorded;
    expect(judge(undirected, { ...far, better: undefined })).toBe("info");
    expect(judge(recorded, { ...far, better: "higher" })).toBe("info");
    expect(
      judge({ bench: "b", name: "n", text: "ok" }, { bench: "b", name: "n", text: "no" }),
    ).toBe("info");
  });
});

const recordedRun: BenchRun = {
  version: 1,
  benches: { loop: { load: [0.4, 0.6] }, loom: {} },
  rows: [
    ratioRow("engine/floor", 2.6, 2.8, 3.2),
    ratioRow("spell run / node -e ''", 2.0, 2.2, 2.4),
    { bench: "loop", name: "node -e ''", value: 40, unit: "ms", better: "lower" },
    ratioRow("gone", 1, 1, 1),
    { ...ratioRow("append / floor", 1.2, 1.3, 1.4), bench: "loom" },
  ],
};
const currentRun: BenchRun = {
  version: 1,
  benches: { loop: { load: [9.5, 12] } },
  rows: [
    ratioRow("engine/floor", 4.0, 4.5, 5.0),
    ratioRow("spell run / node -e ''", 2.1, 2.3, 2.6),
    { bench: "loop", name: "node -e ''", value: 80, unit: "ms", better: "lower" },
    ratioRow("new row", 1, 1, 1),
  ],
};

describe("compareRuns: a run against the recorded one", () => {
  const result = compareRuns(recordedRun, currentRun);
  const byName = (name: string) => result.rows.find((r) => r.key === `loop · ${name}`);

  it("gives each row its ratio to the recorded median and a verdict", () => {
    expect(byName("engine/floor")).toMatchObject({ status: "worse" });
    expect(byName("engine/floor")?.ratio).toBeCloseTo(4.5 / 2.8);
    expect(byName("spell run / node -e ''")).toMatchObject({ status: "same" });
    // an absolute figure twice as slow is shown, not flagged: the machine may just be busier
    expect(byName("node -e ''")).toMatchObject({ status: "info", ratio: 2 });
    expect(result.flagged).toBe(1);
  });

  it("names new and missing rows, and leaves out the benches that did not run", () => {
    expect(byName("new row")).toMatchObject({ status: "new" });
    expect(byName("gone")).toMatchObject({ status: "missing" });
    expect(result.rows.some((r) => r.key.startsWith("loom"))).toBe(false);
    expect(result.notRun).toBe(1);
  });

  it("prints one line per row and a summary that counts the flagged rows", () => {
    const lines = formatComparison(result);
    const worse = lines.find((l) => l.startsWith("loop · engine/floor"));
    expect(worse).toMatch(/1\.61×\s+WORSE$/);
    const summary = lines.find((l) => l.includes("worse beyond their spread"));
    expect(summary).toMatch(/^1 row\(s\) worse beyond their spread \(tolerance 10%\)/);
    expect(summary).toContain("1 recorded row(s) of benches not run");
    // the load of both runs, since a ratio of sides that wait on other processes drifts with it
    expect(lines).toContain("loop: load average recorded 0.4 → 0.6, now 9.5 → 12");
  });

  it("flags nothing when a run is compared with itself", () => {
    expect(compareRuns(recordedRun, recordedRun).flagged).toBe(0);
  });
});

describe("the command line", () => {
  const write = (name: string, run: BenchRun) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(run));
    return path;
  };
  const compare = (...args: string[]) =>
    spawnSync(process.execPath, ["bench/compare.mjs", ...args], { encoding: "utf8" });

  it("exits 2 when a row is flagged and 0 when none is", () => {
    const before = write("before.json", recordedRun);
    const after = write("after.json", currentRun);
    const flagged = compare(before, after);
    expect(flagged.status).toBe(2);
    expect(flagged.stdout).toMatch(/engine\/floor.*WORSE/);
    const same = compare(before, before);
    expect(same.status).toBe(0);
    expect(same.stdout).not.toContain("WORSE");
    // with a tolerance of 100% the slower run is within its spread
    expect(compare(before, after, "--tolerance", "1").status).toBe(0);
  });

  it("refuses a tolerance that is not a fraction", () => {
    expect(() => toleranceArg(["--tolerance", "ten"])).toThrow(/fraction/);
    expect(toleranceArg([])).toBe(DEFAULT_TOLERANCE);
    expect(toleranceArg(["--tolerance", "0.25"])).toBe(0.25);
  });
});

describe("bench/report.mjs: the rows a bench reports", () => {
  it("appends each row to the run's JSONL file, with its spread and direction", async () => {
    const file = join(dir, "rows.jsonl");
    writeFileSync(file, "");
    vi.stubEnv("SPELLBOOK_BENCH_ROWS", file);
    vi.stubEnv("SPELLBOOK_BENCH_NAME", "unit");
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const { row } = await import("../../bench/report.mjs");
      row(
        "a / b",
        { median: 1.234567, min: 1.1, max: 1.5, rounds: 5 },
        {
          better: "lower",
          paired: true,
          target: "≤ 2×",
          ok: true,
        },
      );
      row("per turn", 12.5, { unit: "µs", better: "lower" });
      row("outcome", "valid");
      expect(log.mock.calls[0]?.[0]).toMatch(
        /^a \/ b\s+1\.23× \(1\.10–1\.50 over 5 rounds\)\s+≤ 2× yes$/,
      );
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
    }
    const rows = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as BenchRow);
    expect(rows).toEqual([
      {
        bench: "unit",
        name: "a / b",
        value: 1.235,
        min: 1.1,
        max: 1.5,
        rounds: 5,
        unit: "×",
        better: "lower",
        paired: true,
        target: "≤ 2×",
        ok: true,
      },
      { bench: "unit", name: "per turn", value: 12.5, unit: "µs", better: "lower" },
      { bench: "unit", name: "outcome", text: "valid" },
    ]);
  });
});
