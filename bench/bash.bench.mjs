// The bash medium (issue 13), measured on the built library:
// - one sandboxed command's overhead: a turn whose command is `true`, run through the medium
//   in bubblewrap (sandbox start, pids cgroup, observation) — target ≤ 15 ms per command. Two
//   ways (issue 21): with the model's time between turns (a real model takes 100s of ms to
//   answer; the session starts the next sandbox meanwhile, so the turn waits only for the
//   command), and back to back (a scripted model answering at once: the sandbox's whole start);
// - the same in passthrough (no OS sandbox), for what bubblewrap itself adds;
// - a gate round trip: a command calling a gate (`gate echo hi`: the client on PATH, the unix
//   socket, the host's gate, the printed result) minus the same command without the gate.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Circle } from "../dist/circle/circle.js";
import { doneGate, echoGate } from "../dist/circle/gates/index.js";
import { bwrapProblem, createBashMedium } from "../dist/circle/mediums/bash/index.js";
import { row } from "./report.mjs";

const N = 40;
const ms = { unit: "ms", better: "lower" };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

/** What a model's answer is given here: the pause between two turns, in ms. */
const MODEL_MS = 150;

/**
 * Median wall time of one turn running `command` in a fresh session's steady state: from the
 * model's answer to the observation; `modelMs` passes before each turn (the model answering).
 */
async function turnMs(sandbox, command, modelMs = 0) {
  const root = mkdtempSync(join(tmpdir(), "bash-bench-"));
  const circle = new Circle({
    medium: createBashMedium({ root, writable: false, sandbox }),
    gates: [doneGate(), echoGate()],
    wards: [{ max_turns: N + 10 }],
  });
  const session = circle.open({ entity: undefined, depth: 0 });
  const signal = new globalThis.AbortController().signal;
  const times = [];
  for (let i = 0; i < N + 3; i++) {
    if (modelMs) await sleep(modelMs);
    const call = { id: `c${i}`, name: "bash", arguments: JSON.stringify({ command }) };
    const scope = { entityId: "e", turnId: `t${i}`, signal, requireDone: false };
    const t0 = performance.now();
    const step = await session.execute({ content: null, toolCalls: [call], usage }, scope);
    const ms = performance.now() - t0;
    if (step.isError) throw new Error(`bench command failed: ${step.observation}`);
    if (i >= 3) times.push(ms); // the first turns open the gate server
  }
  session.dispose();
  return median(times);
}

const problem = bwrapProblem();
const pass = await turnMs("passthrough", "true");
row("passthrough: one command turn (`true`), median", pass, ms);
const passGate = await turnMs("passthrough", "gate echo hi");
row("passthrough: gate round trip (`gate echo hi` − `true`)", passGate - pass, ms);
if (problem) {
  row("bubblewrap", `not measured (${problem})`);
} else {
  const real = await turnMs("bwrap", "true", MODEL_MS);
  row(
    `bubblewrap: one sandboxed command turn (\`true\`) after ${MODEL_MS} ms of model time, median`,
    real,
    { ...ms, target: "≤ 15 ms", ok: real <= 15 },
  );
  const box = await turnMs("bwrap", "true");
  row("bubblewrap: one sandboxed command turn (`true`), back to back, median", box, {
    ...ms,
    target: "≤ 15 ms",
    ok: box <= 15,
  });
  row("bubblewrap: overhead over passthrough", box - pass, ms);
  const boxGate = await turnMs("bwrap", "gate echo hi");
  row("bubblewrap: gate round trip (`gate echo hi` − `true`)", boxGate - box, ms);
}

process.exit(0);
