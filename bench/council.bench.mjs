// The council (issue 15): seats of one phase are asked concurrently, so a PARALLEL phase of 5
// seats whose replies each take 100 ms takes ~100 ms, not 500 ms (target ≤ 130 ms). Then the
// executor's own overhead per loop: a whole council on instant scripted replies, minus the
// same number of bare LLM calls.
import { setTimeout as sleep } from "node:timers/promises";
import { Crucible } from "../dist/spell/crucible.js";
import { CouncilCalls } from "../dist/council/calls.js";
import { positions } from "../dist/council/grammars/parallel.js";
import { toTriageOutput } from "../dist/council/triage-output.js";
import { Loom } from "../dist/loom/core/index.js";
import { ratio } from "./paired.mjs";
import { rounds as roundsOf, row, spread } from "./report.mjs";

const reply = {
  content: null,
  toolCalls: null,
  usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 0 },
};
/** An LLM whose every reply takes `ms` (0: answers at once); never runs out. */
const model = (name, ms) => ({
  name,
  query: async () => {
    if (ms) await sleep(ms);
    return { ...reply, content: `${name} says something ${Math.random()}` };
  },
});

const seat = (role) => ({ role, system_prompt: `You are the ${role}.`, model_hint: null });
function triage(deliberating, loops) {
  const roles = ["domain_expert", "pragmatist", "creative", "synthesizer", "creative"];
  return {
    reconstructed_query: "Should we?",
    complexity: "complex",
    council: [...roles.slice(0, deliberating).map(seat), seat("red_team")],
    loop_grammar: "parallel",
    loop_count: loops,
    red_team_flavor: "logical",
    allow_early_exit: false,
    synthesis_instruction: "Briefly.",
  };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. One PARALLEL position phase, 5 seats, 100 ms each.
const slow = model("slow", 100);
const seats = ["a", "b", "c", "d", "e"].map((k) => ({
  key: k,
  seat: { role: "creative", systemPrompt: "x", modelHint: null },
  llm: slow,
}));
const t = toTriageOutput(triage(4, 2));
const phase = [];
for (let i = 0; i < 7; i++) {
  const calls = new CouncilCalls(undefined, "bench");
  const t0 = performance.now();
  await positions({
    triage: t,
    seats,
    redTeam: { systemPrompt: "", llm: slow },
    calls,
    loop: 1,
    prior: null,
  });
  phase.push(performance.now() - t0);
}
const phaseMs = median(phase);
row("PARALLEL phase, 5 seats × 100 ms replies", spread(phase), {
  unit: "ms",
  digits: 1,
  better: "lower",
  target: "≤ 130 ms (one after another: 500 ms)",
  ok: phaseMs <= 130,
});

// 2. A whole PARALLEL loop with the largest council (4 deliberating seats + red team), 100 ms each:
// two phases by the brief's design (seats, then the red team who reads them): ~200 ms.
const loop = [];
for (let i = 0; i < 5; i++) {
  const engine = new Crucible({
    triage: triage(4, 2),
    llms: { default: slow, synthesizer: model("s", 0) },
  });
  const t0 = performance.now();
  await engine.run("q");
  loop.push((performance.now() - t0) / 2);
}
row("PARALLEL loop, 4 seats + red team, 100 ms replies, per loop", spread(loop), {
  unit: "ms",
  digits: 1,
  better: "lower",
  target: "two phases: ≥ 200 ms by design",
});

// 3. Executor overhead per loop: instant replies, 5 loops of 4 seats + red team (+ synthesis).
async function councilRun(loom) {
  const engine = new Crucible({
    triage: triage(4, 5),
    llms: { default: model("fast", 0) },
    ...(loom ? { loom: new Loom() } : {}),
  });
  const t0 = performance.now();
  await engine.run("q");
  return performance.now() - t0;
}
async function bareCalls() {
  const llm = model("fast", 0);
  const t0 = performance.now();
  for (let l = 0; l < 5; l++) {
    await Promise.all([1, 2, 3, 4].map(() => llm.query([{ role: "user", content: "q" }])));
    await llm.query([{ role: "user", content: "q" }]);
  }
  await llm.query([{ role: "user", content: "q" }]);
  return performance.now() - t0;
}
for (let i = 0; i < 200; i++) await councilRun(true); // warm-up
const rounds = roundsOf(400);
const runs = { off: [], on: [], bare: [] };
for (let i = 0; i < rounds; i++) {
  runs.off.push(await councilRun(false));
  runs.on.push(await councilRun(true));
  runs.bare.push(await bareCalls());
}
const ms3 = { unit: "ms", digits: 3, better: "lower" };
row("a 5-loop council run (26 calls, instant replies)", median(runs.off), ms3);
row("the same 26 calls bare", median(runs.bare), ms3);
// Each round runs the council and the bare calls back to back: their ratio is paired. One round
// takes a tenth of a millisecond, so the ratio is taken per group of rounds (8 groups): the
// median of the group's councils over the median of its bare calls.
const groups = (xs) => {
  const size = Math.ceil(rounds / 8);
  return Array.from({ length: Math.ceil(xs.length / size) }, (_, g) =>
    median(xs.slice(g * size, (g + 1) * size)),
  );
};
const paired = { better: "lower", paired: true, note: "(groups of rounds)" };
row("council run / bare calls", ratio(groups(runs.off), groups(runs.bare)), paired);
row(
  "council run recording into a memory loom / bare calls",
  ratio(groups(runs.on), groups(runs.bare)),
  paired,
);
const perLoop = (xs) => ((median(xs) - median(runs.bare)) / 5) * 1000;
const us = { unit: "µs", digits: 0, better: "lower" };
row("executor overhead per loop (4 seats + red team), no loom", perLoop(runs.off), us);
row("executor overhead per loop, every call in a memory loom", perLoop(runs.on), us);

if (phaseMs > 130) {
  console.error(`FAIL: the PARALLEL phase took ${phaseMs.toFixed(1)} ms (> 130 ms)`);
  process.exit(1);
}
