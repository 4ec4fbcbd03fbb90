// Ratios that tell the truth on a shared machine: both sides are measured in the same round,
// alternately, for several rounds; a ratio is the median of the rounds' own ratios, printed with
// its spread (the lowest and highest round). Timing one side after the other lets machine noise
// decide (bench/loop once reported `spell --help` at 0.55× of `node -e ''`).
import { spawnSync } from "node:child_process";

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs `sides` (name → async or sync function returning a number) in turn, `rounds` times; the
 * order within a round alternates so neither side always goes first. Returns name → values.
 */
export async function interleave(rounds, sides) {
  const names = Object.keys(sides);
  const out = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const n of order) {
      globalThis.gc?.();
      out[n].push(await sides[n]());
    }
  }
  return out;
}

/** The median of per-round ratios a[i]/b[i], with the spread. */
export function ratio(as, bs) {
  const rs = as.map((a, i) => a / bs[i]);
  return { median: median(rs), min: Math.min(...rs), max: Math.max(...rs), rounds: rs.length };
}

/** `1.23× (1.10–1.40 over 9 rounds)` */
export function showRatio(r) {
  return `${r.median.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)} over ${r.rounds} rounds)`;
}

/** The environment a user's machine has: this one adds NODE_EXTRA_CA_CERTS (~30 ms a start). */
export const userEnv = () => {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
};

/** One run of a whole command, in ms; throws if it fails. */
export function timeCommand(args, env = userEnv()) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: "ignore", env });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
  return performance.now() - t0;
}
