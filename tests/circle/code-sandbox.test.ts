import { describe, expect, it, vi } from "vitest";
import type { Gate } from "../../src/circle/gate.js";
import { behaviorGate } from "../../src/circle/gates/index.js";
import { loadCodeEngine, sandboxLimits } from "../../src/sandbox/index.js";
import { Sandbox } from "../../src/sandbox/index.js";
import { DEBUG_SYNC, newQuickJSWASMModuleFromVariant } from "quickjs-emscripten";
import { LaneMemory } from "../../src/sandbox/lane-memory.js";
import { Shell } from "../../src/sandbox/shell.js";
import { codeCantrip, doneGate, echoGate, slowGate } from "./code-helpers.js";

const lastObservation = (r: { loom: { turns(): { observation: string }[] } }, i: number) =>
  r.loom.turns()[i]!.observation;

describe("code sandbox: isolation (MEDIUM-2)", () => {
  it("has no require, process, fetch, filesystem or timers", async () => {
    const names = [
      "require",
      "process",
      "fetch",
      "setTimeout",
      "setInterval",
      "setImmediate",
      "XMLHttpRequest",
      "std",
      "os",
      "module",
      "exports",
      "Deno",
      "Bun",
      "global",
      "Buffer",
    ];
    const { cantrip } = codeCantrip([
      `done(${JSON.stringify(names)}.filter((n) => typeof globalThis[n] !== "undefined"))`,
    ]);
    expect((await cantrip.cast("x")).result).toEqual([]);
  });

  it("keeps constructors and imports inside the sandbox", async () => {
    const { cantrip } = codeCantrip([
      "var viaFn = echo.constructor('return typeof process')(); var same = this.constructor.constructor('return this')() === globalThis;" +
        " var imported = 'none'; import('fs').then(() => { imported = 'loaded' }, (e) => { imported = 'refused' }); 1",
      "done([viaFn, same, imported])",
    ]);
    expect((await cantrip.cast("x")).result).toEqual(["undefined", true, "refused"]);
  });

  it("lets prototype tampering break only the sandbox's own JavaScript, never the host or the bridge", async () => {
    const { cantrip } = codeCantrip([
      "Object.prototype.polluted = 'yes'; Array.prototype.push = null; JSON.parse = () => 'hijacked'; JSON.stringify = () => '\"hijacked\"'; Function.prototype.call = null; 1",
      "done({ echoed: echo('still works'), n: 3 })",
    ]);
    const result = await cantrip.cast("x");
    expect(result.result).toMatchObject({ echoed: "still works", n: 3 });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(typeof [].push).toBe("function");
    expect(JSON.parse("1")).toBe(1);
  });
});

describe("code sandbox: wards of the medium (WARD-2)", () => {
  it("interrupts a runaway loop at max_eval_ms; the sandbox stays usable with its state", async () => {
    const { cantrip } = codeCantrip(["var kept = 'before'", "while (true) {}", "done(kept)"], {
      wards: [{ max_turns: 5 }, { max_eval_ms: 100 }],
    });
    const started = performance.now();
    const result = await cantrip.cast("x");
    expect(performance.now() - started).toBeLessThan(3000);
    expect(lastObservation(result, 1)).toMatch(/exceeded max_eval_ms \(100 ms/);
    expect(result.result).toBe("before");
  });

  it("does not count time spent in gates against max_eval_ms", async () => {
    const { cantrip } = codeCantrip(["done(slow_gate())"], {
      gates: [doneGate(), slowGate(150, "waited")],
      wards: [{ max_turns: 2 }, { max_eval_ms: 50 }],
    });
    expect((await cantrip.cast("x")).result).toBe("waited");
  });

  it("does not count a synchronous gate's time either (the worker waits for the main thread)", async () => {
    const spin: Gate = {
      name: "spin",
      description: "works synchronously for 40 ms",
      parameters: { type: "object", properties: {} },
      execute: () => {
        const until = performance.now() + 40;
        while (performance.now() < until);
        return "spun";
      },
    };
    const sync = codeCantrip(
      ["var got = []; for (var i = 0; i < 3; i++) got.push(spin()); done(got.join(','))"],
      { gates: [doneGate(), spin], wards: [{ max_turns: 2 }, { max_eval_ms: 60 }] },
    );
    // 120 ms in gates under a 60 ms code budget: gate time is not code time.
    expect((await sync.cantrip.cast("x")).result).toBe("spun,spun,spun");
  });

  it("a gate longer than max_eval_ms and its grace does not end the run: the watchdog waits it out", async () => {
    // The watchdog's timer fires during the 400 ms gate (50 ms budget + 100 ms grace) and must
    // count only the code's time: the run goes on, its sandbox and variables kept.
    const { cantrip } = codeCantrip(
      ["var kept = 'yes'; var got = slow_gate(); got + ' ' + kept", "done(kept)"],
      {
        gates: [doneGate(), slowGate(400, "slow")],
        wards: [{ max_turns: 3 }, { max_eval_ms: 50 }],
      },
    );
    const result = await cantrip.cast("x");
    expect(lastObservation(result, 0)).toContain("slow yes");
    expect(lastObservation(result, 0)).not.toMatch(/TimeoutError|max_eval_ms/);
    expect(result.result).toBe("yes");
  });

  it("turns an allocation bomb into an observed error, not a crash of the host", async () => {
    const { cantrip } = codeCantrip(
      [
        "var hoard = []; while (true) hoard.push({ n: hoard.length, s: 'x'.repeat(64) + hoard.length })",
        "hoard = null; done('alive')",
      ],
      { wards: [{ max_turns: 3 }, { max_memory_mb: 4 }] },
    );
    const result = await cantrip.cast("x");
    expect(lastObservation(result, 0)).toMatch(/out of memory/i);
    expect(result.result).toBe("alive");
    expect((await loadCodeEngine()).stats().dead).toBe(0);
  });

  it("stops unbounded recursion with a stack error, and a gate called near the stack limit does not crash", async () => {
    const { cantrip } = codeCantrip(
      [
        "function down(n) { return down(n + 1) } down(0)",
        "var max = 0; function probe(n) { max = n; probe(n + 1) } try { probe(0) } catch (e) {}" +
          " function deep(n) { return n <= 0 ? echo('bottom') : deep(n - 1) }" +
          " var r; try { r = deep(max - 3) } catch (e) { r = 'overflow' } done([max > 100, r])",
      ],
      { wards: [{ max_turns: 3 }, { max_stack_kb: 128 }] },
    );
    const result = await cantrip.cast("x");
    expect(lastObservation(result, 0)).toMatch(/stack overflow/);
    const [deepEnough, r] = result.result as [boolean, string];
    expect(deepEnough).toBe(true);
    expect(["bottom", "overflow"]).toContain(r);
    expect((await loadCodeEngine()).stats().dead).toBe(0);
  });

  it("caps max_stack_kb at 256 (the host stack's bound): asking for more recurses no deeper than 256", async () => {
    const code =
      "var max = 0; function probe(n) { max = n; probe(n + 1) } try { probe(0) } catch (e) {} done(max)";
    const deepest = async (stackKb: number) => {
      const { cantrip } = codeCantrip([code], {
        wards: [{ max_turns: 2 }, { max_stack_kb: stackKb }],
      });
      return (await cantrip.cast("x")).result as number;
    };
    const at256 = await deepest(256);
    const asked = await deepest(8192);
    expect(at256).toBeGreaterThan(100);
    expect(typeof asked, "the cast with max_stack_kb 8192 ended without a result").toBe("number");
    expect(asked).toBeLessThanOrEqual(at256 * 1.05);
    expect(sandboxLimits({ max_stack_kb: 8192 }).stackBytes).toBe(256 * 1024);
    expect((await loadCodeEngine()).stats().dead).toBe(0);
  });

  it("interrupts running code when the cast is cancelled (seen when the code next waits on a gate)", async () => {
    // The cancel comes on the code's third gate call (an event: 50 ms after the cast began, a
    // busy machine may not have started the code yet).
    const controller = new AbortController();
    const slow = slowGate(10);
    let calls = 0;
    const counted = {
      ...slow,
      execute: (args: Record<string, unknown>, ctx: Parameters<typeof slow.execute>[1]) => {
        if (++calls === 3) controller.abort("user_cancel");
        return slow.execute(args, ctx);
      },
    };
    const { cantrip } = codeCantrip(["while (true) slow_gate()"], {
      gates: [doneGate(), counted],
      wards: [{ max_turns: 3 }],
    });
    const result = await cantrip.cast("x", { signal: controller.signal });
    expect(result).toMatchObject({ truncated: true, reason: "user_cancel" });
    expect(lastObservation(result, 0)).toMatch(/cancelled \(user_cancel\)/);
  });
});

describe("code sandbox: handles and lanes", () => {
  it("disposes every handle: many entities and turns leave no live sandbox and no dead lane", async () => {
    const engine = await loadCodeEngine();
    const before = engine.stats();
    for (let i = 0; i < 30; i++) {
      const { cantrip } = codeCantrip(
        [
          "var xs = [1, 2, 3]; function f() { return echo('x') } var cyc = {}; cyc.self = cyc; cyc.g = echo; f()",
          "try { missing() } catch (e) { console.log(e.stack) } Promise.resolve(1).then(() => xs.push(4)); xs",
          "throw { weird: true }",
          "done(xs.length)",
        ],
        { state: { seed: { rows: [1, 2, 3] } } },
      );
      expect((await cantrip.cast("x")).result).toBe(4);
    }
    const after = engine.stats();
    expect(after.live).toBe(before.live);
    expect(after.dead).toBe(0);
  });

  it("the disposal check is real: a leaked handle makes QuickJS refuse to free the runtime", async () => {
    // A lane's module instance, inline (in a worker it is the same code: lane-host.ts).
    const module = await newQuickJSWASMModuleFromVariant(DEBUG_SYNC);
    const shell = Shell.create({ module, memory: new LaneMemory(), counterOffset: undefined });
    const leaked = shell.context.newObject();
    expect(() => shell.dispose()).toThrow(/Assertion failed|gc_obj_list|list_empty/);
    void leaked;
  });

  it("a sandbox disposed while its code waits on a gate finishes the run, then goes", async () => {
    const engine = await loadCodeEngine();
    const before = engine.stats().live;
    const limits = sandboxLimits({});
    const sandbox = await Sandbox.open(engine, {
      gates: ["wait"],
      aliases: {},
      warded: {},
      state: {},
      limits,
    });
    // The dispose comes when the code is inside its gate call (an event, not a wait of 20 ms:
    // on a busy machine the code had not reached the gate by then — issue 21).
    let entered!: () => void;
    const inGate = new Promise<void>((r) => (entered = r));
    let answer!: () => void;
    const running = sandbox.evaluate("wait() + 1", {
      signal: new AbortController().signal,
      callGate: () =>
        new Promise((resolve) => {
          answer = () => resolve({ ok: true, value: 41 });
          entered();
        }),
    });
    await inGate;
    sandbox.dispose();
    expect(engine.stats().live).toBe(before + 1); // it stays while its run waits on the gate
    answer();
    expect((await running).value?.text).toBe("42");
    await vi.waitFor(() => expect(engine.stats().live).toBe(before), { timeout: 60_000 });
  });

  it("a sandbox disposed before the worker built it still runs what was asked, then goes", async () => {
    // Found under `stress --cpu 8` (issue 21): a dispose while the sandbox was still being built
    // left the run waiting for an answer that never came, and held its lane for good.
    const engine = await loadCodeEngine();
    const before = engine.stats().live;
    const sandbox = await Sandbox.open(engine, {
      gates: [],
      aliases: {},
      warded: {},
      state: {},
      limits: sandboxLimits({}),
    });
    const running = sandbox.evaluate("6 * 7", {
      signal: new AbortController().signal,
      callGate: () => ({ ok: false, message: "no gates" }),
    });
    sandbox.dispose(); // at once: before the worker said it built the sandbox, or just after
    expect((await running).value?.text).toBe("42");
    expect(sandbox.alive).toBe(false);
    await vi.waitFor(() => expect(engine.stats().live).toBe(before), { timeout: 60_000 });
    // Its lane is free again (it was held for good): the next sandbox may take it.
    expect(sandbox.lane.busy).toBe(false);
  });

  it("runs the sandboxes of concurrent entities at the same time", async () => {
    // A gate that answers "met" only once all 8 runs are inside it at once: were the sandboxes
    // run one after the other, the first would wait for the others in vain and answer "alone".
    // Events, not wall time (a bound of 3 × 150 ms failed on a busy machine — issue 21).
    const arrived: (() => void)[] = [];
    const meet = {
      ...behaviorGate({ name: "meet", behavior: { result: "unused" } }),
      execute: () =>
        new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("alone"), 15_000);
          arrived.push(() => {
            clearTimeout(timer);
            resolve("met");
          });
          if (arrived.length === 8) for (const go of arrived) go();
        }),
    };
    const casts = Array.from(
      { length: 8 },
      () => codeCantrip(["done(meet())"], { gates: [doneGate(), meet] }).cantrip,
    );
    const results = await Promise.all(casts.map((c) => c.cast("x")));
    expect(results.map((r) => r.result)).toEqual(Array(8).fill("met"));
  }, 120_000);

  it("recovers from a lost sandbox: the next run starts fresh, with circle state injected again", async () => {
    const engine = await loadCodeEngine();
    const crash = behaviorGate({ name: "crash_lane", behavior: { result: "ok" } });
    const killing = {
      ...crash,
      execute(args: Record<string, unknown>, ctx: Parameters<typeof crash.execute>[1]) {
        for (const lane of engine.laneList)
          if (lane.live > 0 && lane.busy) lane.kill(new Error("simulated trap"));
        return crash.execute(args, ctx);
      },
    };
    const { cantrip } = codeCantrip(
      ["var kept = 1; crash_lane()", "kept", "done([typeof kept, seed])"],
      {
        gates: [doneGate(), echoGate(), killing],
        state: { seed: 42 },
      },
    );
    const result = await cantrip.cast("x");
    // The lane's worker is gone at once: the run it was in hears it, the next run starts fresh.
    expect(lastObservation(result, 0)).toMatch(/sandbox crashed/);
    expect(lastObservation(result, 1)).toMatch(/'kept' is not defined/);
    expect(result.result).toEqual(["undefined", 42]);
  });
});
