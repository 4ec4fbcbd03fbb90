/** A run's report and printed table without what differs from run to run (latency). */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** summary.json in the report folder `out`: totals and groups, latencies left out. */
export const stableSummary = (out: string) => {
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
    total: number;
    done: number;
    groups: Record<string, unknown>[];
  };
  // Latencies differ between any two runs; everything else must be the same.
  const groups = s.groups.map(({ mean_latency_ms: _mean, p95_latency_ms: _p95, ...g }) => g);
  return { total: s.total, done: s.done, groups };
};

/** The printed summary's lines, the report path and latencies left out. */
export const stableTable = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => !l.startsWith("report:"))
    .map((l) => l.replace(/latency mean \d+ ms p95 \d+ ms/, "latency _"));
