// The code medium and composition (issue 3), measured on the built library:
// - per-turn cost of the code medium in steady state (200 turns, each calling an async gate)
//   against raw QuickJS doing the same work on the benchmark's own thread — the snippet calling
//   an asynchronous host function, which one thread can only do with QuickJS's asyncify build
//   (evalCodeAsync): the baseline the 1.5× target was set against — target ≤ 1.5×, for the
//   medium layer alone (its session executing the utterance: the trip to the lane's worker
//   thread and back, the gate answered by the main thread, observation) and for a whole loop
//   turn (LLM query, medium, loom record, outcome). Shown too, not a target: the ratio to the
//   interpreter alone (QuickJS's sync build calling a synchronous host function — what a lane's
//   worker runs, without the gate's asynchrony or any thread);
// - the sandbox off the main thread (issue 10): how long a cancel and the timeout_ms ward take
//   to end a cast spinning in `while (true) {}`, the event loop's longest stall meanwhile
//   (target: 100 ms), and the start of a new lane (a worker thread);
// - LOOM-11: a turn's cost with a long thread when the code does not read `loom` (flat), and
//   when it does (the new turns cross, not the whole thread);
// - first-turn latency of a code entity and start of a child entity once the module is
//   loaded — target < 2 ms;
// - batches of 8 and 50 scripted children, each waiting 50 ms on a gate — wall time close to
//   ceil(n / 8) child durations;
// - RSS per live (summoned) code entity — target < 200 KB.
import {
  Cantrip,
  Circle,
  behaviorGate,
  callEntityBatchGate,
  callEntityGate,
  codeMedium,
  createIdentity,
  doneGate,
  echoGate,
  ScriptedLLM,
} from "../dist/index.js";
// The sandbox engine is internal (not in the public API): the bench reaches it by its path.
import { loadCodeEngine } from "../dist/sandbox/index.js";
import { interleave, ratio as ratioOf } from "./paired.mjs";
import { rounds, row } from "./report.mjs";

const SNIPPET = "var v = fetch_value(); v + 1";
const TURNS = 200;
/** Rounds of raw / layer / whole-turn measurements; each takes ~0.2 s. */
const ROUNDS = rounds(15);
const gc = () => globalThis.gc?.();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tick = () => new Promise((r) => globalThis.setImmediate(r));

const engine = await loadCodeEngine();

/** An async gate: its execute returns a promise, so the sandbox suspends on it. */
const fetchValue = () => behaviorGate({ name: "fetch_value", behavior: { result: 1 } });

function codeCantrip(
  responses,
  gates = [doneGate(), fetchValue()],
  wards = [{ max_turns: TURNS + 50 }],
) {
  return new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({ medium: codeMedium, gates, wards }),
  });
}

// ── 1. per-turn cost vs raw QuickJS ─────────────────────────────────────────────────────
async function castTurns(n) {
  const responses = Array.from({ length: n - 1 }, () => ({ code: SNIPPET }));
  responses.push({ code: "done(v)" });
  const cantrip = codeCantrip(responses);
  await tick(); // the lane's spare shell is ready, as after any I/O
  const t0 = performance.now();
  const r = await cantrip.cast("loop");
  const ms = performance.now() - t0;
  if (r.turns !== n || !r.terminated) throw new Error(`code medium ran ${r.turns} turns`);
  return ms;
}

/** Steady state: the cost of 200 more turns of one entity, without its start and end. */
async function mediumPerTurn() {
  const short = await castTurns(20);
  const long = await castTurns(20 + TURNS);
  return (long - short) / TURNS;
}

/** The medium alone: its session executing the same utterance, without the entity's loop around it. */
async function sessionPerTurn() {
  const circle = new Circle({
    medium: codeMedium,
    gates: [doneGate(), fetchValue()],
    wards: [{ max_turns: 3 }],
  });
  const session = codeMedium.open(circle, {});
  const response = {
    content: null,
    toolCalls: [{ id: "call_1", name: "js", arguments: JSON.stringify({ code: SNIPPET }) }],
    usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
  };
  const signal = new globalThis.AbortController().signal;
  const scope = { entityId: "ent_bench", turnId: "turn_bench", signal, requireDone: false };
  await session.execute(response, scope); // opens the sandbox
  const t0 = performance.now();
  for (let i = 0; i < TURNS; i++) await session.execute(response, scope);
  const ms = performance.now() - t0;
  session.dispose();
  return ms / TURNS;
}

const quickjs = await import("quickjs-emscripten");
const rawModule = await quickjs.newQuickJSWASMModuleFromVariant(quickjs.RELEASE_SYNC);

async function rawPerEval() {
  const runtime = rawModule.newRuntime();
  runtime.setMaxStackSize(256 * 1024);
  const ctx = runtime.newContext();
  const fn = ctx.newFunction("fetch_value", () => ctx.newNumber(1));
  ctx.setProp(ctx.global, "fetch_value", fn);
  fn.dispose();
  const t0 = performance.now();
  for (let i = 0; i < TURNS; i++) {
    const handle = ctx.unwrapResult(ctx.evalCode(SNIPPET));
    ctx.dump(handle);
    handle.dispose();
  }
  const ms = performance.now() - t0;
  ctx.dispose();
  runtime.dispose();
  await tick();
  return ms / TURNS;
}

const asyncModule = await quickjs.newQuickJSAsyncWASMModuleFromVariant(quickjs.RELEASE_ASYNC);
// One runtime for every round: quickjs-emscripten cannot free a runtime whose global holds a
// host function (see tolerateLateHostRefRelease in lane-host.ts).
const asyncRuntime = asyncModule.newRuntime();
asyncRuntime.setMaxStackSize(256 * 1024);
const asyncCtx = asyncRuntime.newContext();
{
  const fn = asyncCtx.newAsyncifiedFunction("fetch_value", async () => asyncCtx.newNumber(1));
  asyncCtx.setProp(asyncCtx.global, "fetch_value", fn);
  fn.dispose();
}

/** The same snippet and the same asynchronous gate, on this thread: asyncify's evalCodeAsync. */
async function rawAsyncPerEval() {
  const t0 = performance.now();
  for (let i = 0; i < TURNS; i++) {
    const handle = asyncCtx.unwrapResult(await asyncCtx.evalCodeAsync(SNIPPET));
    asyncCtx.dump(handle);
    handle.dispose();
  }
  const ms = performance.now() - t0;
  await tick();
  return ms / TURNS;
}

for (let i = 0; i < 3; i++) {
  await mediumPerTurn(); // warm up: V8's baseline code for all paths, the lanes, the spares
  await sessionPerTurn();
  await rawPerEval();
  await rawAsyncPerEval();
}
const medium = [];
const layer = [];
const raw = [];
const rawAsync = [];
// Each round measures raw QuickJS and the medium back to back, and a ratio is the median of the
// rounds' ratios: load from other processes on a shared machine falls on both sides alike.
for (let i = 0; i < ROUNDS; i++) {
  raw.push(await rawPerEval());
  rawAsync.push(await rawAsyncPerEval());
  layer.push(await sessionPerTurn());
  medium.push(await mediumPerTurn());
}
const perEval = median(raw);
const perAsyncEval = median(rawAsync);
const ms3 = { unit: "ms", digits: 3, better: "lower" };
row("raw QuickJS, same work on this thread (asyncify, async host fn), per eval", perAsyncEval, ms3);
row("raw QuickJS interpreter alone (sync build, sync host fn), per eval", perEval, ms3);
/** A side's ms per turn, then its ratios to raw QuickJS on the same work and to the interpreter. */
function sideRows(label, short, samples) {
  row(`${label}, per turn`, median(samples), ms3);
  const same = ratioOf(samples, rawAsync);
  const paired = { better: "lower", paired: true };
  row(`${short} / raw, same work`, same, { ...paired, target: "≤ 1.5×", ok: same.median <= 1.5 });
  row(`${short} / interpreter alone`, ratioOf(samples, raw), paired);
}
sideRows("code medium layer (session.execute)", "medium layer", layer);
sideRows("whole loop turn in the code medium", "whole turn", medium);

// ── 2. first turn of an entity, start of a child ────────────────────────────────────────
async function firstTurn(yieldFirst) {
  const cantrip = codeCantrip([{ code: "done(1)" }]);
  if (yieldFirst) await tick(); // lets the lane make its spare sandbox shell, as real I/O would
  const t0 = performance.now();
  await cantrip.cast("one turn");
  return performance.now() - t0;
}
for (let i = 0; i < 20; i++) await firstTurn(true);
const firsts = [];
for (let i = 0; i < 50; i++) firsts.push(await firstTurn(true));
const firstsBackToBack = [];
for (let i = 0; i < 50; i++) firstsBackToBack.push(await firstTurn(false));
row("first turn of a code entity (summon → done)", median(firsts), {
  ...ms3,
  target: "< 2 ms",
  ok: median(firsts) < 2,
});
row("first turn, back to back (no idle time for a spare shell)", median(firstsBackToBack), ms3);

function parent(code, gates, childCode) {
  const spawn = {
    llms: {
      pick: async () => ({
        llm: new ScriptedLLM({ responses: [{ code: childCode }] }),
        medium: "code",
      }),
      names: () => [],
    },
  };
  return new Cantrip({
    llm: new ScriptedLLM({ responses: [{ code }] }),
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({
      medium: codeMedium,
      gates: [doneGate(), echoGate(), callEntityGate(spawn), callEntityBatchGate(spawn), ...gates],
      wards: [{ max_turns: 3 }],
    }),
  });
}

// Gate calls in a loop: each crosses to the main thread and back within one run — the case the
// lane's spin-then-sleep windows serve most (hot-wait.ts). One entity, then 8 in a batch.
const GATE_CALLS = 2000;
const gateLoop = `var s = 0; for (var i = 0; i < ${GATE_CALLS}; i++) s += echo(String(i)).length; done(s)`;
async function gateLoopMs(children) {
  const code =
    children === 0
      ? gateLoop
      : `done(call_entity_batch(Array.from({ length: ${children} }, (_, i) => ({ intent: 'part ' + i }))).length)`;
  const p = parent(code, [], gateLoop);
  await tick();
  const t0 = performance.now();
  await p.cast("gate loop");
  return performance.now() - t0;
}
await gateLoopMs(0);
await gateLoopMs(8);
const loopOne = median([await gateLoopMs(0), await gateLoopMs(0), await gateLoopMs(0)]);
const loopEight = median([await gateLoopMs(8), await gateLoopMs(8), await gateLoopMs(8)]);
row(`${GATE_CALLS} synchronous gate calls in one run, per call`, (loopOne * 1000) / GATE_CALLS, {
  unit: "µs",
  digits: 1,
  better: "lower",
});
row(`8 children in a batch, each making ${GATE_CALLS} gate calls: wall`, loopEight, {
  unit: "ms",
  digits: 0,
  better: "lower",
});

async function childStart() {
  // The same parent turn with a trivial child and with a trivial gate: the difference is the
  // child's whole life — spawn, circle, sandbox, one turn, dispose.
  const withChild = parent("done(call_entity('x'))", [], "done(1)");
  const withGate = parent("done(echo('x'))", [], "done(1)");
  await tick();
  let t0 = performance.now();
  await withChild.cast("delegate");
  const a = performance.now() - t0;
  await tick();
  t0 = performance.now();
  await withGate.cast("no delegation");
  return a - (performance.now() - t0);
}
for (let i = 0; i < 20; i++) await childStart();
const starts = [];
for (let i = 0; i < 50; i++) starts.push(await childStart());
row("start of a child entity (spawn → child done → back)", median(starts), {
  ...ms3,
  target: "< 2 ms",
  ok: median(starts) < 2,
});

// ── 3. batches ──────────────────────────────────────────────────────────────────────────
const CHILD_WAIT = 50;
async function batch(n) {
  const slow = behaviorGate({
    name: "slow_gate",
    behavior: { delay_ms: CHILD_WAIT, result: "ok" },
  });
  const p = parent(
    `done(call_entity_batch(Array.from({ length: ${n} }, (_, i) => ({ intent: 'part ' + i }))).length)`,
    [slow],
    "done(slow_gate())",
  );
  const t0 = performance.now();
  const r = await p.cast("fan out");
  if (r.result !== n) throw new Error(`batch of ${n} returned ${JSON.stringify(r.result)}`);
  return performance.now() - t0;
}
const single = median([await batch(1), await batch(1), await batch(1)]);
for (const n of [8, 50]) {
  await batch(n);
  const wall = median([await batch(n), await batch(n), await batch(n)]);
  const waves = Math.ceil(n / 8);
  const ratio = wall / (waves * single);
  row(`batch of ${n} children (${CHILD_WAIT} ms gate each), wall`, wall, {
    unit: "ms",
    digits: 1,
    better: "lower",
    target: `≈ ${waves} × ${single.toFixed(1)} ms`,
    ok: ratio < 1.5,
  });
}

// ── 4. memory per live entity ───────────────────────────────────────────────────────────
// Lanes are worker threads: the cap's worth (16) is started first and measured on its own, so
// the per-entity figure is the sandbox's cost, and the lane's is its own row.
const N = 200;
gc();
await tick();
const lanesBefore = engine.stats().lanes;
const rssBeforeLanes = process.memoryUsage().rss;
const warm = [];
for (let i = 0; i < 16; i++) {
  const entity = codeCantrip([{ code: "1" }, { code: "done(1)" }]).summon();
  await entity.send("open a lane");
  warm.push(entity);
}
for (const e of warm) e.dispose();
gc();
await tick();
const lanesStarted = engine.stats().lanes - lanesBefore;
if (lanesStarted > 0)
  row(
    "RSS per lane (worker thread + QuickJS instance)",
    (process.memoryUsage().rss - rssBeforeLanes) / lanesStarted / 1024,
    { unit: "KB", digits: 0, better: "lower", note: `(${lanesStarted} started)` },
  );
const before = process.memoryUsage().rss;
const live = [];
for (let i = 0; i < N; i++) {
  const entity = codeCantrip([{ code: `var mine = ${i}` }, { code: "done(mine)" }]).summon();
  await entity.send("hold a variable");
  live.push(entity);
}
gc();
await tick();
const perEntity = (process.memoryUsage().rss - before) / N / 1024;
row(`RSS per live code entity (${N} summoned, sandboxes open)`, perEntity, {
  unit: "KB",
  digits: 1,
  better: "lower",
  target: "< 200 KB",
  ok: perEntity < 200,
});
for (const e of live) e.dispose();

// ── 5. the limits (issue 10) ────────────────────────────────────────────────────────────
// max_eval_ms against code whose ticks are costly (each ran 5–9× past its budget before the
// interrupt pace), and max_memory_mb: what a bomb holds when its out-of-memory error comes.
const BUDGET = 1000;
const RUNAWAYS = {
  "memory bomb catching out-of-memory":
    "var h = []; for (var k = 0; k < 1e9; k++) { try { h.push(new Array(131072).fill(1)) } catch (e) { h = [] } }",
  "string doubling, caught": "var s = 'x'; for (;;) { try { s = s + s } catch (e) { s = 'x' } }",
  "recursion catching stack overflow":
    "function f(n) { try { return f(n + 1) } catch (e) { return f(n + 1) } } f(0)",
};
for (const [name, code] of Object.entries(RUNAWAYS)) {
  const c = codeCantrip([{ code }, { code: "done(1)" }], undefined, [
    { max_turns: 3 },
    { max_memory_mb: 16 },
    { max_eval_ms: BUDGET },
  ]);
  const turn = (await c.cast("run away")).loom.turns()[0];
  const ratio = turn.metadata.duration_ms / BUDGET;
  row(`max_eval_ms ${BUDGET} ms: ${name}, turn / budget`, ratio, {
    unit: "×",
    better: "lower",
    target: "≤ 1.2×",
    ok: ratio <= 1.2,
  });
}
for (const mb of [4, 16, 64]) {
  const c = codeCantrip(
    [
      {
        code: "var h = [], held = 0; try { while (true) { h.push(new Uint8Array(1 << 16)); held += 1 << 16 } } catch (e) { h = null; held }",
      },
      { code: "done(1)" },
    ],
    undefined,
    [{ max_turns: 3 }, { max_memory_mb: mb }],
  );
  const seen = (await c.cast("fill")).loom.turns()[0].observation;
  const held = Number(/result: (\d+)/.exec(seen)?.[1] ?? NaN) / 2 ** 20;
  const bound = mb + 4 + mb * 0.1;
  row(`max_memory_mb ${mb}: held by a 64 KiB typed-array bomb`, held, {
    unit: "MiB",
    digits: 1,
    target: `≤ ${bound.toFixed(1)} MiB`,
    ok: held <= bound,
  });
}

// ── 6. the sandbox off the main thread ──────────────────────────────────────────────────
/** The longest the event loop went without running a 2 ms interval while `work` ran. */
async function withLag(work) {
  let last = performance.now();
  let lag = 0;
  const timer = globalThis.setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last);
    last = now;
  }, 2);
  const value = await work;
  globalThis.clearInterval(timer);
  return { value, lag };
}
const SPIN = [{ code: "while (true) {}" }, { code: "done(1)" }];
const LONG = [{ max_turns: 3 }, { max_eval_ms: 60_000 }];
const cancels = [];
const lags = [];
for (let i = 0; i < 5; i++) {
  const controller = new globalThis.AbortController();
  const cast = codeCantrip(SPIN, undefined, LONG).cast("spin", { signal: controller.signal });
  // The event loop while the code spins: the longest gap between 2 ms ticks.
  const { lag } = await withLag(new Promise((r) => globalThis.setTimeout(r, 100)));
  const t0 = performance.now();
  controller.abort("bench");
  await cast;
  cancels.push(performance.now() - t0);
  lags.push(lag);
}
const ms100 = (x) => ({ unit: "ms", digits: 1, better: "lower", target: "≤ 100 ms", ok: x <= 100 });
row(
  "cancel during while (true) {} → cast ends (max of 5)",
  Math.max(...cancels),
  ms100(Math.max(...cancels)),
);
row(
  "event loop's longest stall during the spin (2 ms ticks)",
  Math.max(...lags),
  ms100(Math.max(...lags)),
);
const timeouts = [];
for (let i = 0; i < 5; i++) {
  const c = codeCantrip(SPIN, undefined, [...LONG, { timeout_ms: 200 }]);
  const t0 = performance.now();
  await c.cast("spin");
  timeouts.push(performance.now() - t0 - 200);
}
row(
  "timeout_ms 200 during while (true) {}: past 200 ms (max of 5)",
  Math.max(...timeouts),
  ms100(Math.max(...timeouts)),
);
const laneStarts = [];
for (let i = 0; i < 5; i++) {
  const held = [];
  // Every idle lane taken: the next acquire starts a worker.
  for (const l of engine.laneList) if (!l.dead && !l.retiring) held.push(l);
  for (const l of held) l.live++;
  const t0 = performance.now();
  const lane = await engine.acquire();
  laneStarts.push(performance.now() - t0);
  engine.release(lane);
  for (const l of held) l.live--;
}
row("start of a new lane (worker thread, QuickJS instance), median", median(laneStarts), {
  unit: "ms",
  digits: 1,
  better: "lower",
});

// ── 7. LOOM-11: the loom object's cost ──────────────────────────────────────────────────
async function loomTurns(n, read) {
  const responses = Array.from({ length: n - 1 }, () => ({
    code: read ? "var k = loom.turns.length; fetch_value()" : "fetch_value()",
  }));
  responses.push({ code: "done(1)" });
  const t0 = performance.now();
  await codeCantrip(responses, undefined, [{ max_turns: n + 5 }]).cast("turns");
  return (performance.now() - t0) / n;
}
await loomTurns(50, true);
// The 100- and 800-turn threads alternate within each round; growth is the median of the
// rounds' ratios, shown with its spread.
const threads = await interleave(rounds(3), {
  plain100: () => loomTurns(100, false),
  plain800: () => loomTurns(800, false),
  read100: () => loomTurns(100, true),
  read800: () => loomTurns(800, true),
});
const plain100 = median(threads.plain100);
const read100 = median(threads.read100);
const plainGrowth = ratioOf(threads.plain800, threads.plain100);
row("per turn, 100-turn thread, loom not read", plain100, ms3);
row("800-turn thread / 100-turn thread, loom not read", plainGrowth, {
  better: "lower",
  paired: true,
  target: "≈ 1 (flat)",
  ok: plainGrowth.median < 1.5,
});
row("per turn, 100-turn thread, loom read every turn", read100, ms3);
row(
  "800-turn thread / 100-turn thread, loom read every turn",
  ratioOf(threads.read800, threads.read100),
  {
    better: "lower",
    paired: true,
  },
);

const stats = engine.stats();
row("lanes (WASM instances) at the end", stats.lanes, { digits: 0 });
row("dead lanes at the end", stats.dead, { digits: 0, target: "0", ok: stats.dead === 0 });

process.exit(0);
