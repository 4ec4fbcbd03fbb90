/**
 * An eval run (docs/design/EVALS.md): every case × spell × LLM × repeat is one job of one
 * scheduler; each cast's row streams to results.jsonl as it ends, its score and reason go into
 * the run's loom as a reward on its last turn. Nothing is served from a cache: a fresh run never
 * reads a recording, and a replay serves each cast only the replies recorded for that very cast
 * (spell, LLM, case, repeat index) — a repeat with no recording of its own errors.
 */
import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import type { LLMResponse } from "../core/contract.js";
import { Redactor } from "../core/redact.js";
import { redactDeep, redactedJson } from "../core/redact-stream.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { Loom } from "../loom/core/index.js";
import type { EvalCase, EvalPlan } from "../spell/kinds/index.js";
import { openLoomStore } from "../spell/loom-store.js";
import { errorMessage, SpellbookError } from "../core/errors.js";
import { castOne, erroredOutcome, readReplies, replayOf, type CastOutcome } from "./cast.js";
import type { CastWatcher } from "./observe.js";
import type { CastScope } from "./llm.js";
import { Scheduler, type Job } from "./scheduler.js";
import { junitXml, Tally, type GroupSummary, type ResultRow } from "./summary.js";
import {
  describeTarget,
  judges,
  loadTarget,
  type Target,
  type TargetInfo,
  type TargetOptions,
} from "./targets.js";

export interface EvalRunOptions {
  out: string;
  env: NodeJS.ProcessEnv;
  repeat?: number | undefined;
  concurrency?: number | undefined;
  filter?: string | undefined;
  llm?: string | undefined;
  record?: boolean;
  /** A previous run's folder whose recorded replies answer instead of the providers. */
  replay?: string | undefined;
  /** Aborted: no new cast starts; running ones finish and the report is still written. */
  signal?: AbortSignal | undefined;
  onStart?(total: number): void;
  onRow?(row: ResultRow, tally: Tally): void;
  /** Watches each cast (`spell eval --otel`): its events, its judge, its row. */
  watch?: CastWatcher | undefined;
  /**
   * How the spells' `oci://` references resolve: the one the eval document's own were fetched
   * with (under its spell.lock), so a spell fetched by reference fetches its children under the
   * same lock. Without it, each spell's own lock (the file beside it) decides.
   */
  resolveRemote?: ((ref: string) => Promise<string>) | undefined;
  /** Casts sent elsewhere (`--queue`: queue/remote.ts) instead of run here; closed at the end. */
  remote?: RemoteCasts | undefined;
}

/** One cast as a queue carries it: the spell file, the matrix's LLM label, the case, its repeat. */
export interface RemoteCast {
  spell: string;
  llm: string | undefined;
  case: EvalCase;
  repeat: number;
  /** Which cast of the run it is (case index × repeats + repeat): see core/cast-places.ts. */
  seat?: number | undefined;
}

/** Where a queued run's casts go; each resolves to the row a local cast gives. */
export interface RemoteCasts {
  cast(spec: RemoteCast): Promise<CastOutcome>;
  close(): Promise<void>;
}

export interface EvalRunResult {
  groups: GroupSummary[];
  total: number;
  done: number;
  interrupted: boolean;
  rateLimited: number;
}

/** What the jobs of one run share. */
interface Run {
  o: EvalRunOptions;
  loom: Loom;
  redactor: Redactor;
  scheduler: Scheduler;
  targets: (Target | TargetInfo)[];
  cases: EvalCase[];
  /** Each case's place in the eval file (before `--filter`): its casts' seats follow from it. */
  caseIndex: Map<EvalCase, number>;
  repeat: number;
  recorded: Map<string, LLMResponse[]> | undefined;
  results: WriteStream;
  replies: WriteStream | undefined;
  tally: Tally;
  judgeLLM: ReturnType<typeof judges>;
}

async function open(plan: EvalPlan, o: EvalRunOptions): Promise<Run> {
  mkdirSync(o.out, { recursive: true, mode: 0o700 });
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(o.env[name]);
  const loom = new Loom(openLoomStore(join(o.out, "loom.jsonl"), o.out, redactor, o.env));
  // Queued, every cast is sent at once: the workers' own concurrency limits how many run.
  const concurrency = o.remote ? Infinity : (o.concurrency ?? plan.concurrency);
  const scheduler = new Scheduler(concurrency, o.remote ? {} : plan.providerConcurrency);
  const t: TargetOptions = {
    env: o.env,
    loom,
    redactor,
    scheduler,
    replay: !!o.replay,
    remote: o.resolveRemote,
  };
  const targets: (Target | TargetInfo)[] = [];
  for (const spell of plan.spells)
    for (const llm of o.llm ? [o.llm] : (plan.llms ?? [undefined]))
      targets.push(
        await (o.remote ? describeTarget(spell, llm, o.env) : loadTarget(spell, llm, t)),
      );
  const { filter } = o;
  const stream = (name: string) => createWriteStream(join(o.out, name), { mode: 0o600 });
  return {
    o,
    loom,
    redactor,
    scheduler,
    targets,
    cases: plan.cases.filter((c) => !filter || c.id.includes(filter) || c.intent.includes(filter)),
    caseIndex: new Map(plan.cases.map((c, i) => [c, i])),
    repeat: o.repeat ?? plan.repeat,
    recorded: o.replay ? readReplies(o.replay) : undefined,
    results: stream("results.jsonl"),
    replies: o.record ? stream("replies.jsonl") : undefined,
    tally: new Tally(),
    judgeLLM: judges(t),
  };
}

function* jobs(r: Run): Generator<Job> {
  const scope = (key: string): CastScope => ({
    key,
    replies: r.replies ? [] : undefined,
    replay: r.recorded ? replayOf(r.recorded, key) : undefined,
  });
  const write = (stream: WriteStream, value: unknown) =>
    stream.write(redactedJson(value, (t) => r.redactor.redact(t)) + "\n");
  for (const c of r.cases)
    for (const target of r.targets)
      for (let k = 0; k < r.repeat; k++)
        yield {
          provider: target.provider,
          run: async () => {
            const key = `${target.spell}|${target.llm}|${c.id}|${k}`;
            // Which cast of the run this is, the same wherever it runs: a scripted model gives
            // the seat-th cast's part of its script (core/cast-places.ts).
            const seat = r.caseIndex.get(c)! * r.repeat + k;
            const [cast, judged] = [scope(key), scope(`${key}|judge`)];
            const { loom, judgeLLM } = r;
            const observer =
              "cantrip" in target
                ? r.o.watch?.({
                    ...{ spell: target.spell, name: target.cantrip.name, llm: target.llm },
                    ...{ case: c.id, repeat: k, redact: (t: string) => r.redactor.redact(t) },
                  })
                : undefined;
            const outcome =
              "cantrip" in target
                ? await castOne({ target, c, k, seat, cast, judged, loom, judgeLLM, observer })
                : await remoteCast(r.o.remote!, target, c, k, seat);
            const { judgeTokens, judgeCost } = outcome;
            // Redacted once, as it leaves the cast: results.jsonl, summary.json, junit.xml (its
            // XML escapes are a form no redactor knows) and the CLI's lines all read this row.
            const row = redactDeep(outcome.row, (t) => r.redactor.redact(t));
            write(r.results, row);
            for (const s of [cast, judged])
              if (r.replies && s.replies?.length)
                write(r.replies, { key: s.key, replies: s.replies });
            r.tally.add(row, judgeTokens, judgeCost);
            r.o.onRow?.(row, r.tally);
          },
        };
}

export async function runEval(plan: EvalPlan, o: EvalRunOptions): Promise<EvalRunResult> {
  const r = await open(plan, o);
  const total = r.cases.length * r.targets.length * r.repeat;
  o.onStart?.(total);
  const stop = () => r.scheduler.stop();
  o.signal?.addEventListener("abort", stop, { once: true });
  try {
    await r.scheduler.runAll(jobs(r));
  } finally {
    o.signal?.removeEventListener("abort", stop);
    await o.remote?.close();
    await Promise.all([close(r.results), r.replies && close(r.replies)]);
    r.loom.close();
  }
  const groups = r.tally.summaries(r.repeat);
  const done = r.tally.done;
  const interrupted = r.scheduler.isStopped;
  const rateLimited = r.scheduler.rateLimited();
  const summary = {
    ...{ name: plan.name, total, done, interrupted, repeat: r.repeat },
    ...{ rate_limited: rateLimited, pass: { rate: plan.passRate }, groups },
  };
  const file = (name: string, text: string) =>
    writeFileSync(join(o.out, name), text, { mode: 0o600 });
  file("summary.json", redactedJson(summary, (t) => r.redactor.redact(t), 2) + "\n");
  file(
    "junit.xml",
    junitXml(plan.name, groups, (...at) => r.tally.caseSeconds(...at)),
  );
  return { groups, total, done, interrupted, rateLimited };
}

async function remoteCast(
  remote: RemoteCasts,
  target: TargetInfo,
  c: EvalCase,
  k: number,
  seat: number,
): Promise<CastOutcome> {
  try {
    return await remote.cast({ spell: target.file, llm: target.label, case: c, repeat: k, seat });
  } catch (err) {
    if (SpellbookError.isInstance(err) && err.code === "queue_lost") throw err; // the whole run
    return erroredOutcome(target, c, k, `queued cast failed: ${errorMessage(err)}`);
  }
}

const close = (stream: WriteStream) =>
  new Promise<void>((resolve, reject) =>
    stream.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
