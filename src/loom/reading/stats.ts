/**
 * What a loom says about its casts (`spell loom stats`), per intent: how many, how they ended,
 * turns, tokens, cost, and — over the casts that carry a reward — pass@k and pass^k.
 *
 * A cast begins at a turn whose metadata carries its `intent` (every cast's first turn does) and
 * takes the later turns of the same entity until one ends it (terminated or truncated). A cast
 * is *correct* when its reward (the last one given to any of its turns) is at least the
 * threshold, 1 by default: a full score. Partial credit (0 < reward < 1) is not a pass.
 */
import type { LoomRecord, Turn } from "../records/index.js";

/** P(at least one of k casts drawn from n, c of them correct, is correct): 1 − C(n−c,k)/C(n,k). */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let none = 1;
  for (let i = 0; i < k; i++) none *= (n - c - i) / (n - i);
  return 1 - none;
}

/** P(all k casts drawn from n, c of them correct, are correct): C(c,k)/C(n,k). */
export function passHatK(n: number, c: number, k: number): number {
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return all;
}

interface Cast {
  terminated: boolean;
  truncated: boolean;
  turns: number;
  tokens: number;
  /** null once a turn had no price. */
  costUsd: number | null;
  reward: number | undefined;
}

export interface IntentStats {
  intent: string;
  casts: number;
  terminated: number;
  truncated: number;
  turns: number;
  tokens: number;
  /** USD over every turn; null when any turn's price was unknown. */
  costUsd: number | null;
  /** Casts that carry a reward (n of pass@k) and those whose reward passes (c). */
  rewarded: number;
  correct: number;
  /** By k, for each asked k ≤ rewarded. */
  passAtK: Record<string, number>;
  passHatK: Record<string, number>;
}

/** The casts of a loom, read a record at a time (a long loom is never held whole). */
export class LoomStats {
  private readonly byIntent = new Map<string, Cast[]>();
  private readonly open = new Map<string, Cast>();
  private readonly castOfTurn = new Map<string, Cast>();

  add(record: LoomRecord): void {
    if (record.type === "turn") this.addTurn(record);
    else if (record.type === "reward") {
      const cast = this.castOfTurn.get(record.turn_id);
      if (cast) cast.reward = record.reward;
    }
  }

  private addTurn(turn: Turn): void {
    const intent = turn.metadata["intent"];
    let cast = typeof intent === "string" ? undefined : this.open.get(turn.entity_id);
    if (!cast) {
      cast = {
        terminated: false,
        truncated: false,
        turns: 0,
        tokens: 0,
        costUsd: 0,
        reward: undefined,
      };
      const key = typeof intent === "string" ? intent : "(no intent recorded)";
      const list = this.byIntent.get(key) ?? [];
      list.push(cast);
      this.byIntent.set(key, list);
      this.open.set(turn.entity_id, cast);
    }
    const m = turn.metadata;
    cast.turns++;
    cast.tokens += (Number(m.tokens_prompt) || 0) + (Number(m.tokens_completion) || 0);
    cast.costUsd =
      cast.costUsd === null || typeof turn.cost_usd !== "number"
        ? null
        : cast.costUsd + turn.cost_usd;
    this.castOfTurn.set(turn.id, cast);
    if (turn.terminated || turn.truncated) {
      cast.terminated = turn.terminated;
      cast.truncated = turn.truncated;
      this.open.delete(turn.entity_id);
    }
  }

  /** One row per intent, in the order intents first appear. */
  result(options: { ks: readonly number[]; threshold: number }): IntentStats[] {
    return [...this.byIntent].map(([intent, casts]) => {
      const rewarded = casts.filter((c) => c.reward !== undefined);
      const n = rewarded.length;
      const c = rewarded.filter((x) => x.reward! >= options.threshold).length;
      const passAt: Record<string, number> = {};
      const passHat: Record<string, number> = {};
      for (const k of options.ks) {
        if (k < 1 || k > n) continue;
        passAt[k] = passAtK(n, c, k);
        passHat[k] = passHatK(n, c, k);
      }
      const sum = (f: (x: Cast) => number) => casts.reduce((s, x) => s + f(x), 0);
      return {
        intent,
        casts: casts.length,
        terminated: casts.filter((x) => x.terminated).length,
        truncated: casts.filter((x) => x.truncated).length,
        turns: sum((x) => x.turns),
        tokens: sum((x) => x.tokens),
        costUsd: casts.some((x) => x.costUsd === null) ? null : sum((x) => x.costUsd!),
        rewarded: n,
        correct: c,
        passAtK: passAt,
        passHatK: passHat,
      };
    });
  }
}
