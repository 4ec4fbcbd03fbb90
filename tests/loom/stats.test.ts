import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  createIdentity,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
import { EXIT } from "../../src/cli/io.js";
import { loomRewardCommand, loomStatsCommand } from "../../src/cli/loom-tools.js";
import { passAtK, passHatK } from "../../src/loom/reading/index.js";
import { io } from "../support/io.js";

describe("pass@k and pass^k (the unbiased estimators from n casts with c correct)", () => {
  it("pass@k = 1 − C(n−c,k)/C(n,k); pass^k = C(c,k)/C(n,k)", () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12);
    expect(passHatK(5, 2, 2)).toBeCloseTo(1 / 10, 12);
    expect(passHatK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 3, 3)).toBe(1); // n − c < k: every draw of 3 holds a correct one
    expect(passHatK(5, 5, 5)).toBe(1);
    expect(passHatK(5, 2, 3)).toBe(0);
    // 200 samples, 13 correct, k = 10 (the numbers stay stable: a product, not factorials).
    expect(passAtK(200, 13, 10)).toBeCloseTo(0.497551, 6);
  });
});

/** Casts of two intents into one JSONL loom; returns the path and each cast's last turn. */
async function loomOfCasts() {
  const path = join(mkdtempSync(join(tmpdir(), "stats-")), "loom.jsonl");
  const loom = new Loom(new JsonlStore(path));
  const make = (responses: ConstructorParameters<typeof ScriptedLLM>[0]["responses"]) =>
    new Cantrip({
      llm: new ScriptedLLM({ responses, usage: { prompt_tokens: 10, completion_tokens: 5 } }),
      identity: createIdentity({ systemPrompt: "add" }),
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 2 }] }),
      loom,
    });
  const last: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await make([
      { tool_calls: [{ gate: "echo", args: { text: "thinking" } }] },
      { tool_calls: [{ gate: "done", args: { answer: String(i) } }] },
    ]).cast("What is 2 + 2?");
    last.push(r.lastTurnId!);
  }
  // Truncated by max_turns: two echoes.
  const cut = await make([
    { tool_calls: [{ gate: "echo", args: { text: "a" } }] },
    { tool_calls: [{ gate: "echo", args: { text: "b" } }] },
  ]).cast("Name a prime.");
  last.push(cut.lastTurnId!);
  loom.close();
  return { path, last };
}

describe("spell loom stats", () => {
  it("per intent: casts, terminated/truncated, turns, tokens; pass@k over the rewarded casts", async () => {
    const { path, last } = await loomOfCasts();
    // Rewards on four of the five casts of the first intent: 1, 0, 1, 0.5 (partial: not correct).
    for (const [i, value] of [
      [0, "1"],
      [1, "0"],
      [2, "1"],
      [3, "0.5"],
    ] as const) {
      const o = io();
      expect(await loomRewardCommand(path, { turn: last[i]!, value }, o)).toBe(EXIT.ok);
    }
    const o = io();
    expect(await loomStatsCommand(path, { json: true, k: [1, 2] }, o)).toBe(EXIT.ok);
    const stats = JSON.parse(o.out) as { intents: Record<string, unknown>[] };
    expect(stats.intents).toHaveLength(2);
    const [sum, prime] = stats.intents;
    expect(sum).toMatchObject({
      intent: "What is 2 + 2?",
      casts: 5,
      terminated: 5,
      truncated: 0,
      turns: 10,
      tokens: 150,
      cost_usd: null,
      rewarded: 4,
      correct: 2,
    });
    expect((sum!["pass_at_k"] as Record<string, number>)["1"]).toBeCloseTo(0.5, 12);
    expect((sum!["pass_at_k"] as Record<string, number>)["2"]).toBeCloseTo(1 - 1 / 6, 12);
    expect((sum!["pass_hat_k"] as Record<string, number>)["2"]).toBeCloseTo(1 / 6, 12);
    expect(prime).toMatchObject({ intent: "Name a prime.", casts: 1, truncated: 1, rewarded: 0 });
    expect(prime!["pass_at_k"]).toEqual({});
  });

  it("prints a table a person reads", async () => {
    const { path, last } = await loomOfCasts();
    await loomRewardCommand(path, { turn: last[0]!, value: "1" }, io());
    const o = io();
    expect(await loomStatsCommand(path, { json: false }, o)).toBe(EXIT.ok);
    expect(o.out).toMatch(
      /intent\s+casts\s+term\s+trunc\s+turns\s+tokens\s+cost\s+rewarded\s+pass@1/,
    );
    expect(o.out).toMatch(/"What is 2 \+ 2\?"\s+5\s+5\s+0\s+10\s+150\s+unknown\s+1\s+1\.000/);
    expect(o.out).toMatch(/"Name a prime\."\s+1\s+0\s+1\s+2\s+30\s+unknown\s+0\s+–/);
  });
});

describe("spell loom reward", () => {
  it("appends a reward record with its reason; the turn reads back with the reward", async () => {
    const { path, last } = await loomOfCasts();
    const o = io();
    expect(
      await loomRewardCommand(path, { turn: last[1]!, value: "0.75", reason: "close enough" }, o),
    ).toBe(EXIT.ok);
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      type: "reward",
      turn_id: last[1],
      reward: 0.75,
      reason: "close enough",
    });
    expect(new Loom(new JsonlStore(path)).get(last[1]!)!.reward).toBe(0.75);
  });

  it("refuses a value that is not a number, and a turn the loom does not hold", async () => {
    const { path, last } = await loomOfCasts();
    const before = readFileSync(path, "utf8");
    const bad = io();
    expect(await loomRewardCommand(path, { turn: last[0]!, value: "great" }, bad)).toBe(
      EXIT.invalid,
    );
    expect(bad.err).toMatch(/reward must be a finite number/);
    const unknown = io();
    expect(await loomRewardCommand(path, { turn: "turn_nope", value: "1" }, unknown)).toBe(
      EXIT.invalid,
    );
    expect(unknown.err).toMatch(/no turn turn_nope in the loom/);
    expect(readFileSync(path, "utf8")).toBe(before);
  });
});
