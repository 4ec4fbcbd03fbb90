/**
 * `spell eval FILE`: a `kind: eval` document run (src/eval/), its progress on stderr, its summary
 * per spell × LLM on stdout, the report in --out. Exit 1 when a spell × LLM's pass rate is below
 * `pass.rate`, or with --compare when a case regressed; else 4 when a cast errored (no verdict);
 * 3 for an invalid document or flag.
 */
import { openSpell } from "./open-spell.js";
import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { SpellbookError, errorMessage } from "../core/errors.js";
import { compare, comparisonText, readSummary } from "../eval/compare.js";
import { runEval, type EvalRunOptions, type EvalRunResult } from "../eval/run.js";
import { summaryText, type GroupSummary, type ResultRow, type Tally } from "../eval/summary.js";
import type { EvalPlan } from "../spell/kinds/index.js";
import { loadDocument } from "../spell/index.js";
import { evalProgress } from "./eval-progress.js";
import { EXIT, displayPath, print, type CliIO } from "./io.js";
import { exitFor } from "./load.js";
import { startEvalOtel } from "./otel/eval-spans.js";
import type { OtelFlags } from "./otel/tracing.js";

export interface EvalFlags extends OtelFlags {
  /** Plain HTTP to a registry not on loopback, for `oci://` spells. */
  "plain-http"?: boolean | undefined;
  repeat?: number | undefined;
  concurrency?: number | undefined;
  filter?: string | undefined;
  llm?: string | undefined;
  out?: string | undefined;
  compare?: string | undefined;
  record?: boolean | undefined;
  replay?: string | undefined;
  queue?: string | undefined;
  loom?: string | undefined;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-");

/**
 * Who runs an eval plan's casts: `runEval` in this process by default; the queue puts them on
 * workers instead. The progress, summary and exit code around it are the same either way.
 */
export type EvalDispatch = (plan: EvalPlan, o: EvalRunOptions) => Promise<EvalRunResult>;

export async function evalCommand(
  file: string,
  flags: EvalFlags,
  io: CliIO,
  tty = false,
): Promise<number> {
  const loaded = await loadPlan(file, flags, io);
  if (typeof loaded === "number") return loaded;
  return runPlan(loaded.plan, flags, io, tty, runEval, loaded.remote);
}

/** Runs a plan (an eval document's, or `spell run --repeat`'s) with eval's progress and summary. */
export async function runPlan(
  plan: EvalPlan,
  flags: EvalFlags,
  io: CliIO,
  tty = false,
  dispatch: EvalDispatch = runEval,
  resolveRemote?: (ref: string) => Promise<string>, // how oci:// resolved (under the lock)
): Promise<number> {
  const previous = flags.compare ? readPrevious(resolve(io.cwd, flags.compare), io) : undefined;
  if (previous === null) return EXIT.invalid;
  const out = resolve(io.cwd, flags.out ?? join(".spellbook", "evals", `${plan.name}-${stamp()}`));
  // --otel: the run's workflow span, each cast's spans under it (otel/eval-spans.ts).
  const otel = await startEvalOtel(flags, plan.name, io);
  if (typeof otel === "number") return otel;
  const progress = await evalProgress(tty, io.stderr);
  let total = 0;
  let tally: Tally | undefined;
  let result: EvalRunResult;
  try {
    result = await dispatch(plan, {
      remote: await remoteOf(flags),
      resolveRemote,
      out,
      env: io.env,
      repeat: flags.repeat,
      concurrency: flags.concurrency,
      filter: flags.filter,
      llm: flags.llm,
      record: flags.record === true,
      replay: flags.replay === undefined ? undefined : resolve(io.cwd, flags.replay),
      signal: io.signal,
      onStart: (n) => progress.start((total = n)),
      onRow: (_row, t) => progress.update((tally = t)),
      watch: otel?.watch,
    });
  } catch (err) {
    await otel?.finish(undefined);
    progress.stop(tally, total);
    io.stderr(`${errorMessage(err)}\n`);
    return err instanceof SpellbookError ? exitFor(err) : EXIT.failure;
  }
  await otel?.finish(result);
  progress.stop(tally, total);
  tellInterruptions(result, io);
  await print(io, summaryText(result.groups) + `\nreport: ${displayPath(io.cwd, out)}\n`);
  // A spell × LLM with no decided cast (all errored) has no pass rate to hold against pass.rate.
  const below = result.groups.filter((g) => g.passed + g.failed > 0 && g.pass_rate < plan.passRate);
  for (const g of below)
    io.stderr(
      `${g.spell} × ${g.llm}: pass rate ${g.pass_rate.toFixed(3)} is below pass.rate ${plan.passRate}\n`,
    );
  let regressed = false;
  if (previous) {
    const c = compare(previous, result.groups, plan.regression);
    await print(io, comparisonText(c));
    regressed = c.regressed.length > 0;
    io.stderr(viewHint(io.cwd, resolve(io.cwd, flags.compare!), out) ?? "");
  }
  return verdict(result.groups, below.length > 0 || regressed, io, tally?.firstError, out);
}

/**
 * How to see the two runs side by side in `spell view` (its compare page): the folder that holds
 * both, when the viewer finds both there (two folders down at most); else nothing.
 */
export function viewHint(cwd: string, before: string, after: string): string | undefined {
  const a = before.split(sep);
  const b = after.split(sep);
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  const common = a.slice(0, n).join(sep) || sep;
  const below = (p: string[]) => p.length - n >= 1 && p.length - n <= 2;
  if (!below(a) || !below(b) || common === sep) return undefined;
  const name = (p: string[]) => p.slice(n).join("/");
  const dir = relative(cwd, common) || ".";
  return `side by side: spell view ${dir}, open ${name(b)}, then "Compare with: ${name(a)}"\n`;
}

/** `--queue`: the casts go to workers (queue/remote.ts, loaded only then). */
async function remoteOf(flags: EvalFlags) {
  if (!flags.queue) return undefined;
  const { openRemote } = await import("../queue/remote.js");
  return openRemote(flags.queue, { loom: flags.loom });
}

function verdict(
  groups: GroupSummary[],
  failed: boolean,
  io: CliIO,
  first: ResultRow | undefined,
  out: string,
): number {
  if (failed) return EXIT.failed;
  const errored = groups.reduce((n, g) => n + g.errored, 0);
  if (errored) {
    io.stderr(
      `${errored} cast(s) errored (a provider, a judge, an undecidable assertion): no verdict\n`,
    );
    // Why, at least once: else the reason is only in results.jsonl, which a newcomer has not met.
    if (first)
      io.stderr(
        `the first: ${first.spell} × ${first.llm}, case ${first.case}: ${first.reason.split("\n")[0]}` +
          ` (every cast's reason: ${displayPath(io.cwd, join(out, "results.jsonl"))})\n`,
      );
    return EXIT.failure;
  }
  return EXIT.ok;
}

/** An interrupted or rate-limited run says so on stderr. */
function tellInterruptions(result: EvalRunResult, io: CliIO): void {
  if (result.interrupted)
    io.stderr(`interrupted: ${result.done} of ${result.total} casts ran; the report covers them\n`);
  if (result.rateLimited) io.stderr(`rate limited ${result.rateLimited} time(s); the run waited\n`);
}

/**
 * The eval document's plan and the resolver its `oci://` references went through, or the exit
 * code when a flag or the document is invalid.
 */
async function loadPlan(
  file: string,
  flags: EvalFlags,
  io: CliIO,
): Promise<{ plan: EvalPlan; remote?: (ref: string) => Promise<string> } | number> {
  for (const [flag, dir] of [
    ["--compare", flags.compare],
    ["--replay", flags.replay],
  ] as const)
    if (dir !== undefined && !existsSync(resolve(io.cwd, dir))) {
      io.stderr(`${flag} ${dir}: no such folder\n`);
      return EXIT.invalid;
    }
  const opened = await openSpell(file, io, { plainHttp: flags["plain-http"] });
  if (typeof opened === "number") return opened;
  try {
    const doc = await loadDocument(displayPath(io.cwd, opened.path), {
      env: io.env,
      ...(opened.remote ? { remote: opened.remote } : {}),
    });
    if (doc.kind === "eval")
      return { plan: doc.value as EvalPlan, ...(opened.remote ? { remote: opened.remote } : {}) };
    io.stderr(`${file} is a kind: ${doc.kind} document; spell eval runs kind: eval\n`);
    return EXIT.invalid;
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return exitFor(err);
  }
}

function readPrevious(dir: string, io: CliIO) {
  try {
    return readSummary(dir);
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return null;
  }
}
