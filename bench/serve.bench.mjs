// spell serve under load (issue 12): 50 concurrent loopback clients cast a 3-turn spell for a
// fixed time; casts/s, p50/p99 latency, errors, RSS before and after. The same casts run
// in-process first: the server's own cost is the p50 difference (target ≤ 1 ms at 50 clients).
// The clients run in a child process (this file, with SERVE_BENCH_URL set), so their own work
// does not share the server's event loop; the server's RSS is measured in this process.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Cantrip, Circle, createIdentity, doneGate, echoGate, Loom } from "../dist/index.js";
import { createHttpServer } from "../dist/protocols/http/server.js";
import { Redactor } from "../dist/core/redact.js";

const CLIENTS = 50;
const SECONDS = Number(process.env.SERVE_BENCH_SECONDS ?? 4);

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
/** A fresh cantrip (and in-memory loom) per phase, so one phase's turns do not weigh on the next. */
const makeCantrip = () =>
  new Cantrip({
    llm,
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
    loom: new Loom(),
  });

const pct = (xs, p) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function load(castOnce) {
  const lat = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          if (!(await castOnce())) errors++;
        } catch {
          errors++;
        }
        lat.push(performance.now() - t);
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
const castOver = (url) => async () => {
  const res = await globalThis.fetch(`${url}/cast`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const json = await res.json();
  return res.status === 200 && json.status === "terminated";
};

if (process.env.SERVE_BENCH_URL) {
  // The client process: load the server, report the figures to the parent, exit.
  process.send(await load(castOver(process.env.SERVE_BENCH_URL)));
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

const local = makeCantrip();
const inProcess = await load(async () => (await local.cast("go")).status === "terminated");
globalThis.gc?.();
const loaded = { name: "bench", cantrip: makeCantrip(), redactor: new Redactor() };
const app = await createHttpServer(loaded, { maxConcurrent: CLIENTS });
const url = await app.listen({ port: 0, host: "127.0.0.1" });
globalThis.gc?.();
const rssBefore = process.memoryUsage().rss;
const http = await clientProcess(url);
globalThis.gc?.();
const rssAfter = process.memoryUsage().rss;
await app.close();

const row = (name, r) =>
  console.log(
    `${name.padEnd(22)} ${r.perSecond.toFixed(0).padStart(6)} casts/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`,
  );
console.log(`${CLIENTS} concurrent clients, ${SECONDS} s each, a 3-turn cast`);
row("in-process", inProcess);
row("HTTP (client process)", http);
const added = http.p50 - inProcess.p50;
console.log(
  `server adds (p50)       ${added.toFixed(2)} ms   target ≤ 1 ms   ${added <= 1 ? "yes" : "NO"}`,
);
console.log(
  `errors                  ${http.errors}   target 0   ${http.errors === 0 ? "yes" : "NO"}`,
);
console.log(
  `RSS after / before load ${(rssAfter / 1e6).toFixed(0)} / ${(rssBefore / 1e6).toFixed(0)} MB (the loom keeps every turn in memory here)`,
);
