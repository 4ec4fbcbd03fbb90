// `spell eval`'s scheduler (issue 23), on the built library: casts of 3 turns each against a
// loopback OpenAI-wire server (its own process) that answers after 50 ms, through the real
// openai SDK. Measured: casts/s at concurrency 1, 8 and 64 (target: ≥ 30× from 1 to 64), the
// scheduler's own overhead per cast against bare casts in a loop at concurrency 1 (target ≤ 5%),
// and the heap after each run (results stream to disk: memory stays flat).
// BENCH_EVAL_N (default 1000) casts at 8 and 64; BENCH_EVAL_N1 (default 200) at 1 and bare.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDocument } from "../dist/spell/index.js";
import { runEval } from "../dist/eval/run.js";
import { row } from "./report.mjs";
import { startWire, threeTurnSpell } from "./wire.mjs";

const N = Number(process.env.BENCH_EVAL_N ?? 1000);
const N1 = Number(process.env.BENCH_EVAL_N1 ?? Math.min(N, 200));

const { child: server, port } = await startWire();
const dir = mkdtempSync(join(tmpdir(), "eval-bench-"));
writeFileSync(join(dir, "spell.yaml"), threeTurnSpell(port));
const evalDoc = (n) => `kind: eval
name: bench
spells: [./spell.yaml]
cases: [{ intent: "What is 1 + 2?", expect: [{ turns: 3 }] }]
repeat: ${n}
pass: { rate: 0 }
`;
const env = { ...process.env };

async function bare(n) {
  const spell = await loadDocument(join(dir, "spell.yaml"), {
    env,
    loomPath: join(dir, "bare.jsonl"),
  });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await spell.value.cast("What is 1 + 2?");
    if (r.turns !== 3) throw new Error(`bare cast: ${r.turns} turns (${r.reason})`);
  }
  return (performance.now() - t0) / 1000;
}

async function scheduled(n, c) {
  writeFileSync(join(dir, `eval-${c}.yaml`), evalDoc(n));
  const plan = (await loadDocument(join(dir, `eval-${c}.yaml`), { env })).value;
  globalThis.gc?.();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runEval(plan, { out: join(dir, `out-${c}`), env, concurrency: c });
  const s = (performance.now() - t0) / 1000;
  const { user, system } = process.cpuUsage(cpu0);
  const g = r.groups[0];
  if (g.passed !== n) throw new Error(`c=${c}: ${g.passed}/${n} passed, ${g.errored} errored`);
  globalThis.gc?.();
  return { s, heap: process.memoryUsage().heapUsed, cpuMs: (user + system) / 1000 / n };
}

try {
  console.log(`(the machine is shared: figures under load; N=${N} at 8 and 64, N=${N1} at 1)`);
  const b = await bare(N1);
  const one = await scheduled(N1, 1);
  const rows = [{ c: 1, n: N1, ...one }];
  for (const c of [8, 64]) rows.push({ c, n: N, ...(await scheduled(N, c)) });
  const perCastBare = (b * 1000) / N1;
  const castsPerS = { unit: "casts/s", better: "higher" };
  row("bare loop, casts in a row", N1 / b, {
    ...castsPerS,
    note: `(${N1} casts, ${perCastBare.toFixed(1)} ms/cast)`,
  });
  for (const r of rows) {
    row(`concurrency ${r.c}`, r.n / r.s, { ...castsPerS, note: `(${r.n} casts)` });
    row(`concurrency ${r.c}: heap after`, r.heap / 1024 / 1024, {
      unit: "MB",
      digits: 1,
      better: "lower",
    });
  }
  // What bounds the growth on a busy machine: at 64 casts at once this process is CPU-bound
  // (64 × 3 queries / 150 ms), so casts/s at 64 is at most 1 / (CPU per cast) of what it gets.
  row("concurrency 64: CPU of this process per cast", rows[2].cpuMs, {
    unit: "ms",
    better: "lower",
    note: "(3 LLM queries, the loop, the loom and the results file)",
  });
  const growth = rows[2].n / rows[2].s / (rows[0].n / rows[0].s);
  const overhead = (((one.s - b) / N1) * 1000) / perCastBare;
  row("casts/s growth 1 → 64", growth, {
    unit: "×",
    digits: 1,
    better: "higher",
    target: "≥ 30×",
    ok: growth >= 30,
  });
  row("scheduler overhead at concurrency 1, per cast", overhead * 100, {
    unit: "%",
    digits: 1,
    better: "lower",
    target: "≤ 5%",
    ok: overhead <= 0.05,
  });
} finally {
  server.kill("SIGTERM");
}
