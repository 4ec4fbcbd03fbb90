/**
 * `spell loom stats`, `spell loom reward` and `spell loom thread`: a loom read for what its casts
 * scored, a reward appended by hand, one trajectory written out for a training or eval pipeline.
 */
import { errorMessage } from "../core/errors.js";
import { redactedJson } from "../core/redact-stream.js";
import { formatUsd } from "../core/spend.js";
import { appendReward } from "../loom/stores/index.js";
import { LoomStats, type IntentStats } from "../loom/reading/index.js";
import {
  formatTrajectory,
  threadLoom,
  trajectory,
  type ThreadFormat,
} from "../loom/reading/index.js";
import { EXIT, print, type CliIO } from "./io.js";
import { exitFor } from "./load.js";
import { eachLoomRecord, openLoomArg } from "./loom-export.js";

export interface LoomStatsFlags {
  json: boolean;
  /** The k of pass@k and pass^k; default 1 and 3. */
  k?: number[] | undefined;
  /** The reward a cast needs to count as correct; default 1. */
  threshold?: number | undefined;
}

/** `spell loom stats FILE|URL`: per intent, a row of what its casts did and scored (stats.ts). */
export async function loomStatsCommand(
  file: string,
  flags: LoomStatsFlags,
  io: CliIO,
): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  const ks = flags.k ?? [1, 3];
  const threshold = flags.threshold ?? 1;
  try {
    const stats = new LoomStats();
    await eachLoomRecord(store, (record) => stats.add(record), io);
    const rows = stats.result({ ks, threshold });
    const redact = (t: string) => redactor.redact(t);
    const text = flags.json
      ? `${redactedJson({ threshold, k: ks, intents: rows.map(statsJson) }, redact)}\n`
      : statsTable(rows, ks, redact);
    await print(io, text);
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return exitFor(err);
  } finally {
    await store.close();
  }
  return EXIT.ok;
}

const statsJson = (r: IntentStats) => ({
  intent: r.intent,
  casts: r.casts,
  terminated: r.terminated,
  truncated: r.truncated,
  turns: r.turns,
  tokens: r.tokens,
  cost_usd: r.costUsd,
  rewarded: r.rewarded,
  correct: r.correct,
  pass_at_k: r.passAtK,
  pass_hat_k: r.passHatK,
});

/** The table, redacted: each intent before it is cut and quoted, then the text. */
function statsTable(
  rows: readonly IntentStats[],
  ks: readonly number[],
  redact: (t: string) => string,
): string {
  const head = ["intent", "casts", "term", "trunc", "turns", "tokens", "cost", "rewarded"];
  for (const k of ks) head.push(`pass@${k}`, ...(k > 1 ? [`pass^${k}`] : []));
  const p = (v: number | undefined) => (v === undefined ? "–" : v.toFixed(3));
  const body = rows.map((r) => {
    const whole = redact(r.intent);
    const intent = whole.length > 40 ? `${whole.slice(0, 39)}…` : whole;
    const cells = [JSON.stringify(intent), r.casts, r.terminated, r.truncated, r.turns, r.tokens];
    cells.push(r.costUsd === null ? "unknown" : formatUsd(r.costUsd), r.rewarded);
    for (const k of ks) cells.push(p(r.passAtK[k]), ...(k > 1 ? [p(r.passHatK[k])] : []));
    return cells.map(String);
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return redact([line(head), ...body.map(line)].join("\n") + "\n");
}

export interface LoomRewardFlags {
  turn: string;
  /** As typed: a number, or the command refuses it. */
  value: string;
  reason?: string | undefined;
}

/**
 * `spell loom reward FILE|URL --turn ID --value X [--reason TEXT]`: one reward record appended
 * (to a file, or to a PostgreSQL loom).
 */
export async function loomRewardCommand(
  file: string,
  flags: LoomRewardFlags,
  io: CliIO,
): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  const value = flags.value.trim() === "" ? Number.NaN : Number(flags.value);
  try {
    await appendReward(store, flags.turn, value, flags.reason);
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return exitFor(err);
  } finally {
    await store.close();
  }
  await print(io, `reward ${value} on ${flags.turn}\n`);
  return EXIT.ok;
}

export interface LoomThreadFlags {
  turn: string;
  format: ThreadFormat;
  /** false only with the owner's explicit `--no-redact`. */
  redact: boolean;
}

/**
 * `spell loom thread FILE|URL --turn ID`: the trajectory ending there, as messages; redacted by
 * default. Only the thread's records are read from the store (threadLoom).
 */
export async function loomThreadCommand(
  file: string,
  flags: LoomThreadFlags,
  io: CliIO,
): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  const redact = (t: string) => redactor.redact(t);
  try {
    const loom = await threadLoom(store, flags.turn);
    const text = formatTrajectory(
      trajectory(loom, flags.turn),
      flags.format,
      flags.redact ? redact : undefined,
    );
    await print(io, text);
  } catch (err) {
    io.stderr(`${redact(errorMessage(err))}\n`);
    return exitFor(err);
  } finally {
    await store.close();
  }
  if (!flags.redact)
    io.stderr("warning: written without redaction (--no-redact); the output may contain secrets\n");
  return EXIT.ok;
}
