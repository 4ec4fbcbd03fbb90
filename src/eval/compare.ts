/**
 * `--compare PREVIOUS_DIR`: each case's pass rate (per spell × LLM) against the previous run's
 * summary.json. A case regressed when its rate fell by more than the threshold (`pass.regression`,
 * default 0: any fall); improved when it rose. Cases only one run has are listed as such; a case
 * whose every cast errored in this run (no verdict) is listed as errored, not as gone.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, errorMessage } from "../core/errors.js";
import type { GroupSummary } from "./summary.js";

export interface CaseChange {
  key: string;
  before: number;
  after: number;
}

export interface Comparison {
  regressed: CaseChange[];
  improved: CaseChange[];
  added: string[];
  removed: string[];
  /** Cases of the previous run whose casts all errored in this one (no verdict to compare). */
  errored: string[];
}

const rates = (groups: GroupSummary[]) => {
  const m = new Map<string, number>();
  for (const g of groups)
    for (const [id, c] of Object.entries(g.cases))
      if (c.pass + c.fail > 0) m.set(`${g.spell} × ${g.llm}: ${id}`, c.pass_rate);
  return m;
};

export function readSummary(dir: string): GroupSummary[] {
  try {
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as {
      groups: GroupSummary[];
    };
    return summary.groups;
  } catch (err) {
    throw new ConfigError(
      "eval_compare",
      `--compare ${dir}: not a previous eval's folder (${errorMessage(err)})`,
    );
  }
}

export function compare(
  before: GroupSummary[],
  after: GroupSummary[],
  threshold: number,
): Comparison {
  const a = rates(before);
  const b = rates(after);
  const out: Comparison = { regressed: [], improved: [], added: [], removed: [], errored: [] };
  const undecided = new Set<string>();
  for (const g of after)
    for (const [id, c] of Object.entries(g.cases))
      if (c.pass + c.fail === 0 && c.error > 0) undecided.add(`${g.spell} × ${g.llm}: ${id}`);
  for (const [key, now] of b) {
    const then = a.get(key);
    if (then === undefined) out.added.push(key);
    else if (then - now > threshold + 1e-9) out.regressed.push({ key, before: then, after: now });
    else if (now > then) out.improved.push({ key, before: then, after: now });
  }
  for (const key of a.keys()) {
    if (b.has(key)) continue;
    if (undecided.has(key)) out.errored.push(key);
    else out.removed.push(key);
  }
  return out;
}

const pct = (x: number) => `${Math.round(100 * x)}%`;

export function comparisonText(c: Comparison): string {
  const lines = [
    ...c.regressed.map((x) => `regressed: ${x.key} ${pct(x.before)} → ${pct(x.after)}`),
    ...c.improved.map((x) => `improved: ${x.key} ${pct(x.before)} → ${pct(x.after)}`),
    ...c.added.map((k) => `new: ${k}`),
    ...c.errored.map((k) => `errored: ${k} (every cast errored: no verdict this run)`),
    ...c.removed.map((k) => `gone: ${k}`),
  ];
  return (lines.length ? lines : ["no case changed"]).join("\n") + "\n";
}
