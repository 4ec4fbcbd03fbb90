import { afterAll, describe, expect, it } from "vitest";
import { CodeEngine } from "../../src/sandbox/engine.js";
import { sandboxLimits } from "../../src/sandbox/index.js";
import type { EvalHooks } from "../../src/sandbox/index.js";
import { Sandbox } from "../../src/sandbox/index.js";

/**
 * Sandboxes share a lane (a worker thread, one QuickJS heap) past the engine's lane cap — 16 in
 * a process (engine.ts, `maxLanes`). The tests of the process-wide engine never pass it, so
 * nothing checked the sharing (issue 21). Here an engine of our own has a cap of 1: every
 * sandbox lives in the same lane.
 */
const MiB = 1024 * 1024;
/** README's tolerance of max_memory_mb (sandbox-limits.test.ts): limit + 4 MiB + 10%. */
const tolerance = (limit: number) => 4 * MiB + limit * 0.1;

const engines: CodeEngine[] = [];
afterAll(() => {
  for (const e of engines) for (const lane of e.laneList) lane.kill(new Error("test over"));
});

async function oneLane(): Promise<CodeEngine> {
  const engine = await CodeEngine.create({ maxLanes: 1 });
  engines.push(engine);
  return engine;
}

function open(engine: CodeEngine, wards: Record<string, number>): Promise<Sandbox> {
  const limits = sandboxLimits(wards);
  return Sandbox.open(engine, { gates: ["wait"], aliases: {}, warded: {}, state: {}, limits });
}

const hooks = (signal = new AbortController().signal, callGate?: EvalHooks["callGate"]) => ({
  signal,
  callGate: callGate ?? (() => ({ ok: true as const, value: null })),
});

/** Allocates 64 KiB blocks until out of memory, keeps them, and says how many bytes it holds. */
const FILL =
  "var h = [], held = 0; try { while (true) { h.push(new Uint8Array(1 << 16)); held += 1 << 16 } } catch (e) {} held";

const text = async (run: Promise<{ value?: { text: string } | undefined }>) =>
  (await run).value?.text;

describe("sandboxes sharing one lane (an engine with maxLanes 1)", () => {
  it("they do share it", async () => {
    const engine = await oneLane();
    const a = await open(engine, {});
    const b = await open(engine, {});
    expect(a.lane).toBe(b.lane);
    expect(engine.stats()).toMatchObject({ lanes: 1, live: 2 });
    a.dispose();
    b.dispose();
  });

  it("a sandbox holds no more than its own max_memory_mb, however much its lane-mates may hold", async () => {
    const engine = await oneLane();
    // Three idle lane-mates at 8 MiB put 24 MiB in the lane's budget; the filler's limit is 8.
    const mates = [await open(engine, { max_memory_mb: 8 })];
    mates.push(await open(engine, { max_memory_mb: 8 }), await open(engine, { max_memory_mb: 8 }));
    const filler = await open(engine, { max_memory_mb: 8, max_eval_ms: 60_000 });
    expect(new Set([filler, ...mates].map((s) => s.lane)).size).toBe(1);
    const held = Number(await text(filler.evaluate(FILL, hooks())));
    expect(held).toBeGreaterThan(4 * MiB);
    expect(held).toBeLessThanOrEqual(8 * MiB + tolerance(8 * MiB));
    for (const s of [filler, ...mates]) s.dispose();
  });

  it("the lane's heap stays within its budget: what a lane-mate grew and freed is not a newcomer's to grow again", async () => {
    const engine = await oneLane();
    const stay = await open(engine, { max_memory_mb: 16, max_eval_ms: 60_000 });
    const gone = await open(engine, { max_memory_mb: 16, max_eval_ms: 60_000 });
    expect(stay.lane).toBe(gone.lane);
    const lane = stay.lane;
    // `gone` grows the heap by ~16 MiB, lets it go, and leaves: the lane keeps the space.
    await gone.evaluate(`(function () { ${FILL}; h = null; return held })()`, hooks());
    gone.dispose();
    // `stay` may use that free space and grow the heap by what the budget has left — not by
    // its whole 16 MiB on top (lane-memory.ts: initial 16 MiB + 2 MiB + the residents' limits).
    await stay.evaluate(FILL, hooks());
    const budget = 16 * MiB + 2 * MiB + 16 * MiB;
    const grace = Math.max(2 * MiB, 0.07 * (budget + 2 * MiB));
    expect(lane.heapBytes).toBeLessThanOrEqual(budget + grace);
    stay.dispose();
  });

  it("a lane runs one evaluation at a time: the next waits until a cancelled one has stopped", async () => {
    const engine = await oneLane();
    const spinner = await open(engine, { max_eval_ms: 60_000 });
    const next = await open(engine, {});
    expect(spinner.lane).toBe(next.lane);
    const cancel = new AbortController();
    let inGate!: () => void;
    const reached = new Promise<void>((r) => (inGate = r));
    const spinning = spinner.evaluate(
      "wait(); while (true) {}",
      hooks(cancel.signal, () => {
        inGate();
        return { ok: true, value: null };
      }),
    );
    await reached;
    await new Promise((r) => setTimeout(r, 50)); // the spin has begun
    // The cancel and the next run come together: the next must not start (nor clear the stop
    // flag) before the spinning run has stopped.
    cancel.abort("cancelled");
    const after = next.evaluate("1 + 1", hooks());
    const stopped = await spinning;
    expect(stopped.stopped).toBe("aborted");
    expect(await text(after)).toBe("2");
    expect(next.lane.dead).toBeNull();
    spinner.dispose();
    next.dispose();
  });
});
