// Instructions of a whole code turn, which a loaded machine does not change (unlike wall time):
// run under callgrind, this script counts only two measured casts of code turns (each calling an
// asynchronous gate), after a warm-up cast, on the built library in argv[2] (default ../dist).
//   npm run build
//   CG=1 SPELLBOOK_HOT_WINDOW_MS=0 valgrind --tool=callgrind --instr-atstart=no \
//     --separate-threads=yes --callgrind-out-file=/tmp/cg.%p node bench/code-instructions.mjs dist 200
// Each cast's window is one dump per thread (/tmp/cg.PID.1-TT: 20 turns, .2-TT: N + 20 turns;
// thread 01 is the main thread, the highest the lane's worker); `grep ^summary` gives the counts.
// SPELLBOOK_HOT_WINDOW_MS=0: no spinning, whose instructions would follow the wall clock.
// Without CG it prints the process's CPU time a turn (load changes that).
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
const dist = new globalThis.URL(`../${process.argv[2] ?? "dist"}/`, import.meta.url).href;
const n = Number(process.argv[3] ?? 200);
const m = await import(`${dist}index.js`);
const { Cantrip, Circle, behaviorGate, codeMedium, createIdentity, doneGate, ScriptedLLM } = m;
const SNIPPET = "var v = fetch_value(); v + 1";
function cantripOf(turns) {
  const responses = Array.from({ length: turns - 1 }, () => ({ code: SNIPPET }));
  responses.push({ code: "done(v)" });
  return new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({
      medium: codeMedium,
      gates: [doneGate(), behaviorGate({ name: "fetch_value", behavior: { result: 1 } })],
      wards: [{ max_turns: turns + 50 }],
    }),
  });
}
async function cast(cantrip, turns) {
  const r = await cantrip.cast("loop");
  if (r.turns !== turns || !r.terminated) throw new Error(`ran ${r.turns} turns`);
}
await cast(cantripOf(200), 200); // warm: engine loaded, lane started, code compiled
// callgrind reacts to a command only while the program runs code: the main thread polls for the
// command's end, sleeping 1 ms between looks (a few thousand instructions each).
const ctl = (...flags) => {
  const marker = `${tmpdir()}/spellbook-callgrind.${process.pid}.${flags.join("")}`;
  rmSync(marker, { force: true });
  spawn(
    "sh",
    ["-c", `callgrind_control ${flags.join(" ")} ${process.pid} >/dev/null 2>&1; touch ${marker}`],
    { stdio: "ignore", detached: true },
  ).unref();
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(marker)) Atomics.wait(cell, 0, 0, 1);
};
// Two measured casts, each in its own window: (long − short) / (n − 20) cancels what a cast
// costs once (its entity, its sandbox, a lane's start).
async function measured(turns) {
  const c = cantripOf(turns);
  await new Promise((r) => globalThis.setImmediate(r));
  const cpu0 = process.cpuUsage();
  if (process.env.CG) ctl("-z");
  await cast(c, turns);
  if (process.env.CG) ctl("-d");
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000;
}
if (process.env.CG) ctl("-i", "on");
const shortMs = await measured(20);
const longMs = await measured(n + 20);
console.log(JSON.stringify({ n, cpuUsPerTurn: ((longMs - shortMs) * 1000) / n }));
process.exit(0);
