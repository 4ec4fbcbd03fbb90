/**
 * The run's tallies, kept as counts and small lists while rows stream to disk (memory stays
 * flat in the number of casts' records): per spell × LLM and per case. Then summary.json,
 * junit.xml and the table on stdout are written from them.
 */
import type { CaseStatus } from "./assert.js";
import { mean, p95, passAtK, passHatK } from "./stats.js";
import { formatMoney } from "./money.js";

/** One row of results.jsonl: one cast. */
export interface ResultRow {
  spell: string;
  llm: string;
  case: string;
  repeat: number;
  status: CaseStatus;
  score: number;
  reason: string;
  cast_status: string;
  cast_reason: string;
  turns: number;
  tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  /** The cast's entity and last turn in the run's loom (spell view links a cell to them). */
  entity_id: string | null;
  last_turn_id: string | null;
  location: string;
}

interface CaseTally {
  pass: number;
  fail: number;
  error: number;
  reason: string;
}

interface GroupTally {
  spell: string;
  llm: string;
  cases: Map<string, CaseTally>;
  turns: number[];
  latency: number[];
  tokens: number;
  cost: number;
  costUnknown: number;
}

export interface GroupSummary {
  spell: string;
  llm: string;
  casts: number;
  passed: number;
  failed: number;
  errored: number;
  /** Over the casts that were decided (errored ones apart). */
  pass_rate: number;
  k: number;
  pass_at_k: number;
  pass_hat_k: number;
  mean_turns: number;
  p95_turns: number;
  tokens: number;
  /** null when some cast's cost was unknown. */
  cost_usd: number | null;
  mean_latency_ms: number;
  p95_latency_ms: number;
  cases: Record<string, CaseTally & { pass_rate: number }>;
}

export class Tally {
  private readonly groups = new Map<string, GroupTally>();
  done = 0;
  passed = 0;
  decided = 0;
  errored = 0;
  tokens = 0;
  cost = 0;
  /** Casts (or their judges) whose cost is unknown: `cost` then sums only the known part. */
  costUnknown = 0;
  /** The first cast that errored: its reason is what `spell eval` names when a run has no verdict. */
  firstError: ResultRow | undefined;
  /** Each case's casts' wall time, summed (junit.xml's `time=`), by spell, LLM and case. */
  private readonly latency = new Map<string, number>();

  /** The seconds a case's casts took, summed (0 for a case with no cast). */
  caseSeconds(spell: string, llm: string, id: string): number {
    return (this.latency.get(`${spell}\u0000${llm}\u0000${id}`) ?? 0) / 1000;
  }

  /** One cast's row; its judges' tokens and cost count in its group's and the run's. */
  add(row: ResultRow, judgeTokens: number, judgeCost: number | undefined = 0): void {
    const id = `${row.spell}\u0000${row.llm}`;
    let g = this.groups.get(id);
    if (!g) {
      g = {
        spell: row.spell,
        llm: row.llm,
        cases: new Map(),
        turns: [],
        latency: [],
        tokens: 0,
        cost: 0,
        costUnknown: 0,
      };
      this.groups.set(id, g);
    }
    let c = g.cases.get(row.case);
    if (!c) g.cases.set(row.case, (c = { pass: 0, fail: 0, error: 0, reason: "" }));
    c[row.status]++;
    if (row.status !== "pass" && !c.reason) c.reason = row.reason;
    const at = `${id}\u0000${row.case}`;
    this.latency.set(at, (this.latency.get(at) ?? 0) + row.latency_ms);
    g.turns.push(row.turns);
    g.latency.push(row.latency_ms);
    g.tokens += row.tokens + judgeTokens;
    if (row.cost_usd === null || judgeCost === undefined) {
      g.costUnknown++;
      this.costUnknown++;
    } else g.cost += row.cost_usd + judgeCost;
    this.done++;
    this.tokens += row.tokens + judgeTokens;
    this.cost += (row.cost_usd ?? 0) + (judgeCost ?? 0);
    if (row.status === "error") {
      this.errored++;
      this.firstError ??= row;
    } else this.decided++;
    if (row.status === "pass") this.passed++;
  }

  summaries(k: number): GroupSummary[] {
    return [...this.groups.values()].map((g) => {
      let passed = 0,
        failed = 0,
        errored = 0,
        at = 0,
        hat = 0,
        counted = 0;
      const cases: GroupSummary["cases"] = {};
      for (const [name, c] of g.cases) {
        passed += c.pass;
        failed += c.fail;
        errored += c.error;
        const n = c.pass + c.fail;
        cases[name] = { ...c, pass_rate: n ? c.pass / n : 0 };
        if (n >= k) {
          at += passAtK(n, c.pass, k);
          hat += passHatK(n, c.pass, k);
          counted++;
        }
      }
      const decided = passed + failed;
      return {
        spell: g.spell,
        llm: g.llm,
        casts: decided + errored,
        passed,
        failed,
        errored,
        pass_rate: decided ? passed / decided : 0,
        k,
        pass_at_k: counted ? at / counted : NaN,
        pass_hat_k: counted ? hat / counted : NaN,
        mean_turns: mean(g.turns),
        p95_turns: p95(g.turns),
        tokens: g.tokens,
        cost_usd: g.costUnknown ? null : g.cost,
        mean_latency_ms: mean(g.latency),
        p95_latency_ms: p95(g.latency),
        cases,
      };
    });
  }
}

/** XML text: the five specials escaped, control characters XML 1.0 cannot hold dropped. */
const esc = (s: string) =>
  [...s]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 || ch === "\t" || ch === "\n" || ch === "\r")
    .join("")
    .replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A number as a JUnit attribute or property value: finite, else empty (not known). */
const num = (x: number | null, digits = 3): string =>
  x === null || !Number.isFinite(x) ? "" : String(Number(x.toFixed(digits)));

/**
 * One testsuite per spell × LLM, one testcase per case: failed when any repeat failed. A
 * testcase's `time` is its casts' wall time summed, in seconds (the suite's, all of them); the
 * suite's `<properties>` carry pass@k, pass^k, k and the cost in USD (empty when unknown).
 */
export function junitXml(
  name: string,
  groups: GroupSummary[],
  seconds: (spell: string, llm: string, id: string) => number = () => 0,
): string {
  const suites = groups.map((g) => {
    let total = 0;
    const cases = Object.entries(g.cases).map(([id, c]) => {
      const body = c.fail
        ? `<failure message="${esc(`${c.fail} of ${c.pass + c.fail + c.error} casts failed`)}">${esc(c.reason)}</failure>`
        : c.error
          ? `<error message="${esc(`${c.error} casts errored`)}">${esc(c.reason)}</error>`
          : "";
      const time = seconds(g.spell, g.llm, id);
      total += time;
      return `    <testcase classname="${esc(`${g.spell} × ${g.llm}`)}" name="${esc(id)}" time="${num(time)}">${body}</testcase>`;
    });
    const failures = Object.values(g.cases).filter((c) => c.fail).length;
    const errors = Object.values(g.cases).filter((c) => !c.fail && c.error).length;
    const property = (key: string, value: string) =>
      `      <property name="${key}" value="${esc(value)}"/>`;
    const properties = [
      "    <properties>",
      property("k", String(g.k)),
      property("pass_at_k", num(g.pass_at_k, 4)),
      property("pass_hat_k", num(g.pass_hat_k, 4)),
      property("pass_rate", num(g.pass_rate, 4)),
      property("cost_usd", num(g.cost_usd, 6)),
      "    </properties>",
    ];
    return `  <testsuite name="${esc(`${name}: ${g.spell} × ${g.llm}`)}" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${num(total)}">\n${[...properties, ...cases].join("\n")}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${esc(name)}">\n${suites.join("\n")}\n</testsuites>\n`;
}

const pct = (x: number) => (Number.isNaN(x) ? "n/a" : `${(100 * x).toFixed(1)}%`);

/** The table on stdout: one block per spell × LLM. */
export function summaryText(groups: GroupSummary[]): string {
  return groups
    .map((g) =>
      [
        `${g.spell} × ${g.llm}: ${g.passed}/${g.passed + g.failed} passed (${pct(g.pass_rate)})${g.errored ? `, ${g.errored} errored` : ""}`,
        `  pass@${g.k} ${pct(g.pass_at_k)}  pass^${g.k} ${pct(g.pass_hat_k)}`,
        `  turns mean ${g.mean_turns.toFixed(2)} p95 ${g.p95_turns}  tokens ${g.tokens}  cost ${g.cost_usd === null ? "unknown" : formatMoney(g.cost_usd)}  latency mean ${Math.round(g.mean_latency_ms)} ms p95 ${Math.round(g.p95_latency_ms)} ms`,
      ].join("\n"),
    )
    .join("\n");
}
