/**
 * The sandbox runs off the main thread (issue 10; LIMITS.md): while code spins in a sandbox,
 * the event loop stays free — a cancel, the timeout_ms ward, another cast and a Ctrl-C of
 * `spell run` act at once. The requirement is 100 ms (bench/code measures the latencies against
 * it); the bounds here tell an event loop that answers from one held for 60 s.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadCodeEngine, sandboxLimits } from "../../src/sandbox/index.js";
import { Sandbox } from "../../src/sandbox/index.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";
import { startLoopbackProvider } from "../../src/llm/loopback/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { codeCantrip, doneGate, echoGate, slowGate } from "../circle/code-helpers.js";

const SPIN = "var before = 'kept'; while (true) {}";
const LONG = { max_eval_ms: 60_000 };
/**
 * "Within 100 ms" is the requirement and bench/code measures it; here the behaviour: a held
 * event loop would take the 60 s of max_eval_ms, so 8 s tells the two apart on any machine (at
 * 1 s, a load of 20 on 2 cores failed three of these — issue 21).
 */
const PROMPT_MS = 8000;

/** How long to wait for an event that comes at once on a quiet machine (a load of 25 is slow). */
const WAIT = { timeout: 60_000, interval: 20 };

/** Resolves once every lane has been free: each is taken in turn, after whoever holds it. */
async function lanesIdle(): Promise<void> {
  const engine = await loadCodeEngine();
  await Promise.all(engine.laneList.map((l) => l.exclusive(async () => {})));
}

/** Cancels the cast ("user_cancel"): it must end promptly, truncated with that reason. */
async function cancelled<T>(controller: AbortController, cast: Promise<T>): Promise<T> {
  const stoppedAt = performance.now();
  controller.abort("user_cancel");
  const result = await cast;
  expect(performance.now() - stoppedAt).toBeLessThan(PROMPT_MS);
  expect(result).toMatchObject({ truncated: true, reason: "user_cancel" });
  return result;
}

/** The longest the event loop went without running a 5 ms interval, while `work` ran. */
async function loopLag<T>(work: Promise<T>): Promise<{ value: T; lag: number }> {
  let last = performance.now();
  let lag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last);
    last = now;
  }, 5);
  try {
    return { value: await work, lag };
  } finally {
    clearInterval(timer);
  }
}

describe("a busy sandbox does not hold the event loop", () => {
  it("a cancel stops `while (true) {}` promptly; the turn is recorded, truncated", async () => {
    const { cantrip } = codeCantrip([SPIN, "done(before)"], {
      wards: [{ max_turns: 3 }, LONG],
    });
    const controller = new AbortController();
    const cast = cantrip.cast("spin", { signal: controller.signal });
    // The code is spinning by now; the event loop goes on meanwhile.
    const { lag } = await loopLag(new Promise((r) => setTimeout(r, 300)));
    expect(lag).toBeLessThan(PROMPT_MS);
    const result = await cancelled(controller, cast);
    expect(result.loom.turns()[0]!.observation).toMatch(/cancelled \(user_cancel\)/);
  });

  it("the timeout_ms ward fires during `while (true) {}`", async () => {
    const { cantrip } = codeCantrip([SPIN, "done(1)"], {
      wards: [{ max_turns: 3 }, LONG, { timeout_ms: 300 }],
    });
    const started = performance.now();
    const result = await cantrip.cast("spin");
    expect(performance.now() - started).toBeLessThan(300 + PROMPT_MS);
    expect(result).toMatchObject({ truncated: true });
    expect(result.loom.turns()).toHaveLength(1);
  });

  it("a run calling a synchronous gate in a loop does not hold the event loop either", async () => {
    // Each echo() is answered by the main thread, within a short window when it answers at once
    // (hot-wait.ts): the windows' budget per event-loop turn lets timers, cancels and wards run.
    // The cast is cancelled once the main thread has answered 3 calls (how many fit in a time is
    // the machine's business: 1 in 300 ms at a load of 30 on 2 cores, hundreds on a quiet one).
    let answered = 0;
    const echo = echoGate();
    const counting = {
      ...echo,
      execute: (...a: Parameters<typeof echo.execute>) => (answered++, echo.execute(...a)),
    };
    const { cantrip } = codeCantrip(["var n = 0; while (true) echo(String(n++));", "done(1)"], {
      gates: [doneGate(), counting],
      wards: [{ max_turns: 3 }, LONG],
    });
    const controller = new AbortController();
    const cast = cantrip.cast("echo forever", { signal: controller.signal });
    const { lag } = await loopLag(
      vi.waitFor(() => expect(answered).toBeGreaterThanOrEqual(3), WAIT),
    );
    expect(lag).toBeLessThan(PROMPT_MS);
    const result = await cancelled(controller, cast);
    const turn = result.loom.turns()[0]!;
    expect(turn.gate_calls.length).toBeGreaterThanOrEqual(3);
    expect(turn.gate_calls.every((c, i) => c.result === String(i))).toBe(true);
  });

  it("the timeout_ms ward fires during a run calling a synchronous gate in a loop", async () => {
    const { cantrip } = codeCantrip(["var n = 0; while (true) echo(String(n++));", "done(1)"], {
      wards: [{ max_turns: 3 }, LONG, { timeout_ms: 300 }],
    });
    const started = performance.now();
    const { value: result, lag } = await loopLag(cantrip.cast("echo forever"));
    expect(performance.now() - started).toBeLessThan(300 + PROMPT_MS);
    expect(lag).toBeLessThan(PROMPT_MS);
    expect(result).toMatchObject({ truncated: true, reason: "timeout_ms" });
    // Each answer paired with its call, however many the machine fitted in.
    const turn = result.loom.turns()[0]!;
    expect(turn.gate_calls.every((c, i) => c.result === String(i))).toBe(true);
  });

  it("gates answered at once and later, in any order, each reach the call that asked", async () => {
    // Synchronous answers come within the window, delayed ones through the event loop: the
    // worker must pair every answer with its call whichever way it came.
    const code = [
      "var got = [];",
      "for (var i = 0; i < 300; i++) got.push(i % 3 === 0 ? slow_gate() + i : echo(String(i)));",
      "done(got.join(','))",
    ].join("\n");
    const { cantrip } = codeCantrip([code], {
      gates: [doneGate(), echoGate(), slowGate(1, "s")],
      wards: [{ max_turns: 2 }],
    });
    const result = await cantrip.cast("mix");
    const expected = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `s${i}` : String(i)));
    expect(result.result).toBe(expected.join(","));
  });

  it("another cast runs all its turns while one spins, and the spinner is stopped after", async () => {
    const spinner = codeCantrip([SPIN, "done(before)"], { wards: [{ max_turns: 3 }, LONG] });
    const controller = new AbortController();
    const spinning = spinner.cantrip.cast("spin", { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    const worker = codeCantrip(["var n = 1", "n += echo('x').length", "n += 1", "done(n)"], {
      wards: [{ max_turns: 5 }],
    });
    const started = performance.now();
    const { value: other, lag } = await loopLag(worker.cantrip.cast("count"));
    expect(other.result).toBe(3);
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);
    expect(lag).toBeLessThan(PROMPT_MS);
    controller.abort("done with it");
    expect(await spinning).toMatchObject({ truncated: true });
  });

  it("a summoned entity goes on after a cancelled spin, with its variables", async () => {
    const { cantrip } = codeCantrip([SPIN, "done(before)"], {
      wards: [{ max_turns: 3 }, LONG, { timeout_ms: 200 }],
    });
    const entity = cantrip.summon();
    try {
      const first = await entity.send("spin");
      expect(first.truncated).toBe(true);
      // The spin stopped where the worker could interrupt it: the sandbox and `before` remain.
      expect((await entity.send("answer")).result).toBe("kept");
    } finally {
      entity.dispose();
    }
  });
});

describe("spell serve while a cast spins", () => {
  it("answers /healthz and runs another cast; a client that leaves stops the spinner", async () => {
    // The replies come from a loopback OpenAI-compatible server in the order asked: a served
    // scripted spell starts its script again for each cast (issue 45), and the second cast here
    // must get done(2) while the first spins.
    const js = (code: string) => ({ tool_calls: [{ gate: "js", args: { code } }] });
    const provider = await startLoopbackProvider(
      [js("while (true) {}"), js("done(2)")].map((r, i) => wireReplyOf("llm", r, i)),
    );
    const text = [
      "name: spinner",
      `llm: { provider: openai, model: wire-model, base_url: "${provider.url}/v1", api_key: loopback-key }`,
      "identity: { system_prompt: spin }",
      "circle:",
      "  medium: code",
      "  gates: [done]",
      "  wards: [{ max_turns: 3 }, { max_eval_ms: 60000 }]",
    ].join("\n");
    const loaded = await loadSpellText(text, "spinner.yaml", { loomPath: "memory" });
    const app = await createHttpServer(loaded, {});
    try {
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      const cast = (signal?: AbortSignal) =>
        fetch(`${url}/cast`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ intent: "spin" }),
          ...(signal ? { signal } : {}),
        });
      const leaving = new AbortController();
      const spinning = cast(leaving.signal).catch(() => "left");
      // The spinner has taken the LLM's first reply once its code holds a lane (a fixed sleep
      // let the second cast take `while (true) {}` at a load of 20 — issue 21).
      const engine = await loadCodeEngine();
      await vi.waitFor(() => expect(engine.laneList.some((l) => l.busy)).toBe(true), WAIT);
      const started = performance.now();
      const health = (await (await fetch(`${url}/healthz`)).json()) as { running: number };
      expect(health.running).toBe(1);
      // The server's second reply, done(2), goes to this cast: it runs to its end.
      expect(await (await cast()).json()).toMatchObject({ status: "terminated", result: 2 });
      expect(performance.now() - started).toBeLessThan(PROMPT_MS);
      leaving.abort();
      expect(await spinning).toBe("left");
      await vi.waitFor(
        () =>
          expect(loaded.cantrip!.loom.turns().find((t) => t.truncated)).toMatchObject({
            reason: "client_disconnected",
          }),
        WAIT,
      );
      await lanesIdle(); // the spinner stopped: its lane is free again
    } finally {
      await app.close();
      await provider.close();
    }
  }, 120_000);
});

describe("`spell run` and Ctrl-C during `while (true) {}`", () => {
  it("exits promptly, truncated `interrupted`, with its turn in the loom", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spell-sigint-"));
    const spell = join(dir, "spin.yaml");
    const loom = join(dir, "loom.jsonl");
    mkdirSync(join(dir, "ws"));
    writeFileSync(
      spell,
      [
        "kind: cantrip",
        "name: spin",
        // The write tells the test that the turn's code runs; the loop after it never ends.
        "llm: { provider: scripted, responses: [{ code: \"write({ path: 'started', content: '1' }); while (true) {}\" }, { code: 'done(1)' }] }",
        "identity: { system_prompt: spin }",
        "circle:",
        "  medium: code",
        "  gates: [done, { write: { root: ws, writable: true } }]",
        "  wards: [{ max_turns: 3 }, { max_eval_ms: 60000 }]",
        "intent: spin",
      ].join("\n"),
    );
    const child = spawn(process.execPath, ["bin/run.js", "run", spell, "--loom", loom, "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // Wait until the turn's code runs (its first statement wrote ws/started), whatever the load.
    while (!existsSync(join(dir, "ws", "started"))) {
      if (child.exitCode !== null) throw new Error(`spell run ended early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const sentAt = performance.now();
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(performance.now() - sentAt).toBeLessThan(PROMPT_MS * 2);
    expect(stderr).toMatch(/interrupted/);
    expect(code).not.toBeNull();
    const result = JSON.parse(stdout) as { status: string; reason: string };
    expect(result).toMatchObject({ status: "truncated", reason: "interrupted" });
    const turns = readFileSync(loom, "utf8")
      .split("\n")
      .filter((l) => l.startsWith('{"type":"turn"'));
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatch(/cancelled \(interrupted\)/);
  }, 120_000);
});

describe("no worker outlives its casts", () => {
  it("a process that cast code (a spin cancelled, children in parallel) exits by itself", () => {
    // The built library, in a process of its own that never calls process.exit.
    const script = `
      import { Cantrip, Circle, codeMedium, doneGate, echoGate, ScriptedLLM } from "./dist/index.js";
      const make = (codes, wards) => new Cantrip({
        llm: new ScriptedLLM({ responses: codes.map((code) => ({ code })) }),
        identity: { systemPrompt: "x" },
        circle: new Circle({ medium: codeMedium, gates: [doneGate(), echoGate()], wards }),
      });
      const spin = make(["while (true) {}"], [{ max_turns: 2 }, { max_eval_ms: 60000 }, { timeout_ms: 100 }]);
      const casts = [spin.cast("spin"), ...[1, 2, 3].map((i) => make(["done(echo('" + i + "'))"], [{ max_turns: 2 }]).cast("x"))];
      const results = await Promise.all(casts);
      console.log(JSON.stringify(results.map((r) => r.result ?? r.reason)));
    `;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(r.error).toBeUndefined(); // no timeout: nothing kept the process alive
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([expect.any(String), "1", "2", "3"]);
  });

  it("a sandbox disposed before its worker built it leaves its lane unreferenced", async () => {
    // CodeSession.dispose while its sandbox opens: Sandbox.open returns once `open` is posted,
    // and the worker's answer comes for a sandbox that has left the lane.
    const engine = await loadCodeEngine();
    const setup = { gates: [], aliases: {}, warded: {}, state: {}, limits: sandboxLimits({}) };
    // The lane's short hot wait may take the worker's answer before `open` returns (then the
    // sandbox was built: not this case): open again until one returns with the answer pending.
    let sandbox = await Sandbox.open(engine, setup);
    for (let tries = 1; !sandbox.lane.referenced && tries < 50; tries++) {
      sandbox.dispose();
      sandbox = await Sandbox.open(engine, setup);
    }
    expect(sandbox.lane.referenced).toBe(true);
    sandbox.dispose();
    const { lane } = sandbox;
    await vi.waitFor(() => expect(lane.referenced).toBe(false), { timeout: 3000 });
  });

  it("lanes are idle and unreferenced once casts end (the process may exit)", async () => {
    await lanesIdle(); // the spinners of the tests before have stopped (a cancel takes its time)
    const { cantrip } = codeCantrip(["done(1)"]);
    await cantrip.cast("x");
    const engine = await loadCodeEngine();
    expect(engine.laneList.every((l) => !l.busy)).toBe(true);
    expect(engine.laneList.every((l) => !l.referenced)).toBe(true);
  });
});
