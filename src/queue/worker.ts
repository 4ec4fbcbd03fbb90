/**
 * `spell worker`: a BullMQ Worker on the casts queue. Each job is one cast of an eval (job.ts);
 * the worker loads each spell × LLM × loom once and casts it as a local eval does (eval/cast.ts
 * castOne: the same scopes, the same assessment, the reward on its last turn), many at once
 * (`concurrency`): nothing in the engine is process-global, each cast has its own entity.
 * The job's return value is the cast's row; the enqueuer (remote.ts) tallies it. A job's cast is
 * its pre-assigned entity's, continued from the last turn recorded (loom.ts `prepare`).
 *
 * Locks: BullMQ renews a job's lock every lockDuration/2 from this process's event loop; a worker
 * that stops renewing (killed, frozen) loses its jobs to another worker after `lockDuration`,
 * found by the stalled-jobs check every `stalledInterval` (docs/design/SCALE.md "Hand-over").
 */
import type { Job, Worker } from "bullmq";
import { ConfigError, errorMessage, SpellbookError } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import { redactDeep } from "../core/redact-stream.js";
import { castOne } from "../eval/cast.js";
import { Scheduler } from "../eval/scheduler.js";
import { judges, loadTarget, type Target, type TargetOptions } from "../eval/targets.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { loomSecrets } from "../loom/open/index.js";
import { connectionOf, loadBullMQ, shownQueue } from "./connection.js";
import { QUEUE_NAME, type QueuedCast, type QueuedOutcome } from "./job.js";
import { openWorkerLoom, type WorkerLoom } from "./loom.js";
import { checkJob, spellsRoot, workerLoomFor } from "./trust.js";
import { sharedPauses } from "./pauses.js";
import type { Rate } from "./rates.js";

export interface WorkerOptions {
  queue: string;
  concurrency: number;
  /** The loom for jobs that name none (a file or URL); undefined: an in-memory loom. */
  loom: string | undefined;
  /** The folder whose spells this worker runs (trust.ts); a job's spell elsewhere is refused. */
  spells: string;
  env: NodeJS.ProcessEnv;
  /** Lock timing (ms): BullMQ's defaults (30 s, 30 s) unless set. */
  lockDuration?: number | undefined;
  stalledInterval?: number | undefined;
  /** Steady per-provider rates shared by every worker (`--rate openai=10/s`; rates.ts). */
  rates?: Readonly<Record<string, Rate>> | undefined;
  /** Aborted (SIGTERM, Ctrl-C) while the worker is still reaching its Redis: it gives up. */
  signal?: AbortSignal | undefined;
  log(line: string): void;
}

export interface RunningWorker {
  worker: Worker;
  /** Stops taking jobs, lets the running casts end, closes the looms. */
  close(): Promise<void>;
}

export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const root = spellsRoot(o.spells);
  const { Worker } = await loadBullMQ();
  const connection = connectionOf(o.queue);
  const redactor = workerRedactor(o);
  const scheduler = new Scheduler(o.concurrency);
  const pauses = await sharedPauses(o.queue, scheduler, o.rates, o.signal);
  const looms = loomCache(redactor, o.env);
  const targetFor = targetCache(o.env, redactor, scheduler, looms.open);

  const processor = async (job: Job<unknown>): Promise<QueuedOutcome> => {
    const c = checkJob(job.data, root); // anyone who can write to the Redis can add a job
    const where = workerLoomFor(c.loom, o.loom); // only its own loom: a job's URL is never used
    const { target, t } = await targetFor(c, where).catch((err: unknown) => {
      throw unloaded(c.spell, err, (line) => o.log(logLine(redactor, line)));
    });
    const { loom, prepare } = await looms.open(where);
    await prepare(c.entityId); // a job taken over: the turns its first worker recorded
    const scope = (key: string) => ({ key, replies: undefined, replay: undefined });
    const key = `${target.spell}|${target.llm}|${c.case.id}|${c.repeat}`;
    const outcome = await castOne({
      target,
      c: c.case,
      k: c.repeat,
      seat: c.seat,
      entityId: c.entityId,
      cast: scope(key),
      judged: scope(`${key}|judge`),
      loom,
      judgeLLM: judges(t),
    });
    o.log(logLine(redactor, doneLine(job.id, c, outcome)));
    // What BullMQ keeps in Redis as the job's return value: its strings redacted before encoding
    // (a row's reason quotes a provider's error or a judge's words).
    return redactDeep(outcome, (t) => redactor.redact(t));
  };

  const worker = new Worker<unknown, QueuedOutcome>(QUEUE_NAME, processor, {
    connection,
    concurrency: o.concurrency,
    ...(o.lockDuration ? { lockDuration: o.lockDuration } : {}),
    ...(o.stalledInterval ? { stalledInterval: o.stalledInterval } : {}),
  });
  worker.on("error", (err) => o.log(logLine(redactor, `queue error: ${err.message}`)));
  // A refused or failed job: its eval gets the row; the worker's owner reads why here.
  worker.on("failed", (job, err) => o.log(logLine(redactor, failedLine(job?.id, err))));
  const close = async (force = false) => {
    await worker.close(force);
    await pauses.close();
    await looms.close();
  };
  // Nothing of a worker that did not start is left connecting.
  await untilAborted(worker.waitUntilReady(), o.signal).catch(async (err: unknown) => {
    await close(true).catch(() => {});
    throw err;
  });
  o.log(`spell worker: waiting for casts on ${shownQueue(o.queue)} (concurrency ${o.concurrency})`);
  return { worker, close: () => close() };
}

/** The provider keys of the worker's environment, and its --loom URL's password. */
function workerRedactor(o: WorkerOptions): Redactor {
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(o.env[name]);
  // As `spell run --loom postgres://…` does (spell/loom-store.ts).
  for (const secret of o.loom === undefined ? [] : loomSecrets(o.loom)) redactor.add(secret);
  return redactor;
}

/** Each loom the jobs name (a file or URL; none: an in-memory loom), opened once. */
function loomCache(redactor: Redactor, env: NodeJS.ProcessEnv) {
  const looms = new Map<string, Promise<WorkerLoom>>();
  return {
    open: (where: string | undefined): Promise<WorkerLoom> => {
      const key = where ?? "";
      let l = looms.get(key);
      if (!l) looms.set(key, (l = openWorkerLoom(where, redactor, env)));
      return l;
    },
    close: async () => {
      for (const l of looms.values()) await (await l.catch(() => undefined))?.close();
    },
  };
}

/** Each spell × LLM × loom, loaded once; a spell that failed to load is tried again. */
function targetCache(
  env: NodeJS.ProcessEnv,
  redactor: Redactor,
  scheduler: Scheduler,
  loomFor: (where: string | undefined) => Promise<WorkerLoom>,
) {
  const targets = new Map<string, Promise<{ target: Target; t: TargetOptions }>>();
  return (c: QueuedCast, where: string | undefined) => {
    const key = `${c.spell}|${c.llm ?? ""}|${where ?? ""}`;
    let t = targets.get(key);
    if (!t) {
      t = loomFor(where).then(async ({ loom }) => {
        const t: TargetOptions = { env, loom, redactor, scheduler, replay: false };
        return { target: await loadTarget(c.spell, c.llm, t), t };
      });
      targets.set(key, t);
      t.catch(() => targets.delete(key));
    }
    return t;
  };
}

/**
 * A job's spell that did not load. Why goes to this worker's log only: the loader's messages
 * quote the file (a line that is no YAML, its keys), and the job's failure is read by whoever
 * can read the Redis — a job may name any file of the folder, spell or not.
 */
function unloaded(spell: string, err: unknown, log: (line: string) => void): Error {
  log(`spell ${spell} did not load: ${errorMessage(err)}`);
  const code = SpellbookError.isInstance(err) ? err.code : "unknown";
  return new ConfigError(
    "queue_job",
    `the spell ${spell} did not load on this worker (${code}): the worker's log says why`,
  );
}

/**
 * A line for the worker's log: redacted, then its control characters escaped (`\u000a`), so a
 * job's or a model's text cannot write lines of its own into the log. Redacted first: an escaped
 * secret is a spelling the redactor would not know.
 */
function logLine(redactor: Redactor, text: string): string {
  return redactor
    .redact(text)
    .replace(/\p{Cc}/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The worker's line for a job that failed: its id, the error's code and message. */
function failedLine(id: string | undefined, err: Error): string {
  const code = SpellbookError.isInstance(err) ? err.code : "unknown";
  return `job ${id ?? "?"} failed (${code}): ${errorMessage(err)}`;
}

/** The worker's line for a finished cast: its status, and why when it did not pass. */
function doneLine(id: string | undefined, c: QueuedCast, { row }: QueuedOutcome): string {
  const why = row.status === "pass" || !row.reason ? "" : `: ${row.reason}`;
  return `cast done ${id} (${c.case.id} #${c.repeat}: ${row.status}${why})`;
}

/** `work`, unless `signal` aborts first: then a rejection with the abort's reason. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
