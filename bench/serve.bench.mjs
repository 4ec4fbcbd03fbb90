// spell serve under load (issue 12): 50 concurrent loopback clients cast a 3-turn spell for a
// fixed time; casts/s, p50/p99 latency, errors, RSS before and after. The same casts run
// in-process first: the server's own cost is the p50 difference (target ≤ 1 ms at 50 clients).
// The clients run in a child process (this file, with SERVE_BENCH_URL set), so their own work
// does not share the server's event loop; the server's RSS is measured in this process.
//
// Two phases. "saturated": every client casts again as soon as its last cast answers — the
// figure is casts/s; its p50 is queueing (Little's law: p50 ≈ clients / throughput), not the
// server's cost. "paced": every client starts a cast every PACE_MS (50 clients × 1 per 50 ms =
// 1,000 casts/s, below saturation on this box), so the p50 difference to the in-process cast at
// the same pace is what HTTP and the server add to one cast. The clients use node:http with a
// keep-alive agent (undici's fetch alone saturates a core at ~3k requests/s here).
import { fork } from "node:child_process";
import http from "node:http";
import { setTimeout } from "node:timers";
import { URL, fileURLToPath } from "node:url";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Cantrip,
  Circle,
  createIdentity,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
} from "../dist/index.js";
import { createHttpServer } from "../dist/protocols/http/server.js";
import { Redactor } from "../dist/core/redact.js";
import { row } from "./report.mjs";

const CLIENTS = 50;
const SECONDS = Number(process.env.SERVE_BENCH_SECONDS ?? 4);
const PACE_MS = Number(process.env.SERVE_BENCH_PACE_MS ?? 50);

/** A model that never runs out: echo, echo, done — counted from the context it is sent. */
const llm = {
  name: "bench/three-turns",
  query(messages) {
    let since = 0;
    for (let i = messages.length - 1; i >= 0 && messages[i].role !== "user"; i--)
      if (messages[i].role === "assistant") since++;
    const call =
      since < 2
        ? { id: `c${since}`, name: "echo", arguments: '{"text":"hi"}', input: { text: "hi" } }
        : { id: "d", name: "done", arguments: '{"answer":"ok"}', input: { answer: "ok" } };
    return Promise.resolve({
      content: null,
      toolCalls: [call],
      usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 0 },
    });
  },
};
/**
 * A fresh cantrip per phase, so one phase's turns do not weigh on the next. The in-process
 * phases use an in-memory loom (the floor); the server records into a JSONL loom, as
 * `spell serve` does, which keeps no turn in memory — so its RSS must not grow per cast.
 */
const makeCantrip = (loom = new Loom()) =>
  new Cantrip({
    llm,
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
    loom,
  });

const pct = (xs, p) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `pace` 0: closed loop (saturated); else each client starts a cast every `pace` ms. */
async function load(castOnce, pace = 0) {
  const lat = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      if (pace) await sleep((pace * i) / CLIENTS); // spread the clients over one period
      while (performance.now() < end) {
        const t = performance.now();
        try {
          if (!(await castOnce())) errors++;
        } catch {
          errors++;
        }
        const took = performance.now() - t;
        lat.push(took);
        if (pace && took < pace) await sleep(pace - took);
      }
    }),
  );
  return {
    casts: lat.length,
    perSecond: lat.length / SECONDS,
    p50: pct(lat, 0.5),
    p99: pct(lat, 0.99),
    errors,
  };
}

const body = JSON.stringify({ intent: "go" });
let shownFailure = false;
const castOver = (url) => {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
  return () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: hostname, port, path: "/cast", method: "POST", agent, headers },
        (res) => {
          const parts = [];
          res.on("data", (d) => parts.push(d));
          res.on("end", () => {
            const text = Buffer.concat(parts).toString("utf8");
            const ok = res.statusCode === 200 && JSON.parse(text).status === "terminated";
            // The first failure is shown: a bench that only counts errors hides why.
            if (!ok && !shownFailure) console.error(`a cast failed: ${res.statusCode} ${text}`);
            shownFailure ||= !ok;
            resolve(ok);
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
};

if (process.env.SERVE_BENCH_URL) {
  // The client process: load the server, report the figures to the parent, exit.
  const castOnce = castOver(process.env.SERVE_BENCH_URL);
  const saturated = await load(castOnce);
  const paced = await load(castOnce, PACE_MS);
  process.send({ saturated, paced });
  process.exit(0);
}

/** The load client in its own process, against `url`. */
function clientProcess(url) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, SERVE_BENCH_URL: url },
    });
    child.once("message", resolve);
    child.once("error", reject);
    child.once("exit", (code) => code !== 0 && reject(new Error(`client exited ${code}`)));
  });
}

/** One phase on a fresh cantrip, dropped afterwards: its in-memory loom must not weigh on the next. */
async function inProcessPhase(pace) {
  const local = makeCantrip();
  const result = await load(async () => (await local.cast("go")).status === "terminated", pace);
  globalThis.gc?.();
  return result;
}
const inProcess = await inProcessPhase(0);
const inProcessPaced = await inProcessPhase(PACE_MS);
globalThis.gc?.();
const dir = mkdtempSync(join(tmpdir(), "serve-bench-"));
const loomFile = join(dir, "loom.jsonl");
const served = makeCantrip(new Loom(new JsonlStore(loomFile)));
// A served spell as the loader gives it: `spell` is its document (no inputs:, so a request's
// intent is cast as sent).
const loaded = { name: "bench", cantrip: served, redactor: new Redactor(), spell: {} };
const app = await createHttpServer(loaded, { maxConcurrent: CLIENTS });
const url = await app.listen({ port: 0, host: "127.0.0.1" });
globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
const { saturated: overHttp, paced: overHttpPaced } = await clientProcess(url);
globalThis.gc?.();
globalThis.gc?.();
const rssAfter = process.memoryUsage().rss;
const heapAfter = process.memoryUsage().heapUsed;
await app.close();
// No file when no cast was recorded (every request failed: the errors row says so).
const loomBytes = existsSync(loomFile) ? statSync(loomFile).size : 0;
rmSync(dir, { recursive: true, force: true });

console.log(`${CLIENTS} concurrent clients, ${SECONDS} s per phase, a 3-turn cast`);
const phaseRows = (name, r) => {
  row(`${name}: casts/s`, r.perSecond, { unit: "casts/s", digits: 0, better: "higher" });
  row(`${name}: p50`, r.p50, { unit: "ms", better: "lower" });
  row(`${name}: p99`, r.p99, { unit: "ms", better: "lower" });
};
phaseRows("saturated, in-process", inProcess);
phaseRows("saturated, HTTP (client process)", overHttp);
phaseRows(`paced ${PACE_MS} ms, in-process`, inProcessPaced);
phaseRows(`paced ${PACE_MS} ms, HTTP`, overHttpPaced);
const added = overHttpPaced.p50 - inProcessPaced.p50;
row("server adds (p50, paced)", added, {
  unit: "ms",
  better: "lower",
  target: "≤ 1 ms",
  ok: added <= 1,
});
const errors = overHttp.errors + overHttpPaced.errors;
row("errors", errors, { digits: 0, better: "lower", target: "0", ok: errors === 0 });
const casts = overHttp.casts + overHttpPaced.casts;
const mb0 = { unit: "MB", digits: 0, better: "lower" };
row("RSS before load", rssBefore / 1e6, mb0);
row("RSS after load", rssAfter / 1e6, {
  ...mb0,
  note: `(${casts} casts; JSONL loom: ${(loomBytes / 1e6).toFixed(0)} MB on disk)`,
});
// The JS heap after a full collection is what a leak per cast would grow; RSS also holds the
// allocator's and V8's reserves, which grow with the load's peak and are not given back at once.
const perCast = (heapAfter - heapBefore) / casts;
row("JS heap before load", heapBefore / 1e6, { ...mb0, digits: 1 });
row("JS heap after load", heapAfter / 1e6, { ...mb0, digits: 1 });
row("JS heap growth per cast (run with --expose-gc)", perCast, {
  unit: "bytes",
  digits: 0,
  better: "lower",
});

// spell serve against a bare fastify route, side by side (issue 39): bench/serve-paired.mjs.
const { serveVersusFastify } = await import("./serve-paired.mjs");
await serveVersusFastify(makeCantrip);

// Memory bounded by the work in flight, not by history (issue 20): bench/serve-memory.mjs.
const { idleSessions, servedLooms } = await import("./serve-memory.mjs");
await idleSessions();
await servedLooms();

// What MCP adds to one cast (issue 26): bench/serve-mcp.mjs.
const { mcpOverhead } = await import("./serve-mcp.mjs");
await mcpOverhead();
