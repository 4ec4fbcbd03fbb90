/**
 * `spell eval`'s progress on stderr (cli-progress): done/total, pass rate so far, tokens, cost
 * (formatMoney, as the summary writes it), ETA. On a terminal it is a bar redrawn in place;
 * otherwise a single line when the run ends. cli-progress (and the readline it needs) loads only
 * for the bar: a plain `spell run` bundles this file and must not pay for it (start-up).
 */
import { formatMoney } from "../eval/money.js";
import type { Tally } from "../eval/summary.js";

export interface EvalProgress {
  start(total: number): void;
  update(tally: Tally): void;
  stop(tally: Tally | undefined, total: number): void;
}

const payload = (t: Tally) => ({
  rate: t.decided ? `${((100 * t.passed) / t.decided).toFixed(0)}%` : "-",
  tokens: t.tokens,
  cost: t.costUnknown ? "cost unknown" : formatMoney(t.cost), // never a guessed $0, as the summary
  errored: t.errored,
});

export async function evalProgress(
  tty: boolean,
  write: (text: string) => void,
): Promise<EvalProgress> {
  if (!tty)
    return {
      start: () => undefined,
      update: () => undefined,
      stop: (t, total) => {
        const p = t ? payload(t) : undefined;
        write(
          `eval: ${t?.done ?? 0}/${total} casts, pass ${p?.rate ?? "-"}, ${p?.errored ?? 0} errored, ${p?.tokens ?? 0} tokens, ${p?.cost ?? formatMoney(0)}\n`,
        );
      },
    };
  const { SingleBar } = (await import("cli-progress")).default;
  const bar = new SingleBar({
    format:
      "eval [{bar}] {value}/{total} | pass {rate} | errored {errored} | {tokens} tokens | {cost} | ETA {eta_formatted}",
    stream: process.stderr,
    hideCursor: true,
  });
  return {
    start: (total) =>
      bar.start(total, 0, { rate: "-", tokens: 0, cost: formatMoney(0), errored: 0 }),
    update: (t) => bar.update(t.done, payload(t)),
    stop: () => bar.stop(),
  };
}
