// Summoner flows (issue 14), measured on the built library: messages per second through a flow
// of 50 routes (a ring s0 → s1 → … → s49 → s0, one receiver and one sender per route).
// - bare cycle: handlers are plain synchronous functions, so what is timed is the cycle itself
//   (hooks, eligibility, ordering, tape update, sender filters, trace) — target ≥ 50k msgs/s;
// - js handlers: the same flow with every hook, receiver and sender a `js:` handler in the
//   QuickJS sandbox (three sandbox calls per message);
// both with one tape key (one activation and one emission per message) and with 10 keys.
import { Flow, FlowRunner, JsHandlers } from "../dist/index.js";
import { row, spread } from "./report.mjs";

const ROUTES = 50;
let missed = 0;

function ring(keys, handlers) {
  const initial = {};
  for (let k = 0; k < keys; k++) initial[`peer${k}`] = `s${(k * 7) % ROUTES}`;
  const flow = new Flow({ name: "bench", tape: { shape: "index-single", initial } });
  flow.hook("receive", handlers.hook);
  for (let i = 0; i < ROUTES; i++) {
    flow.receive(`s${i} --> s${(i + 1) % ROUTES}`, handlers.receiver, { priority: [i % 3] });
    flow.send(`s${i} --> s${(i + 1) % ROUTES}`, handlers.sender, {
      actions: ["MOVE"],
      triggers: ["ok"],
    });
  }
  return flow;
}

const bare = {
  hook: (p) => p,
  receiver: (i) => ({ action: "MOVE", trigger: i.payload.n >= 0 ? "ok" : "no" }),
  sender: (i) => ({ to: i.key, n: i.payload.n }),
};

async function rate(flow, messages, reps) {
  const xs = [];
  for (let r = 0; r < reps; r++) {
    const runner = new FlowRunner(flow);
    globalThis.gc?.();
    const t0 = performance.now();
    let emitted = 0;
    for (let n = 0; n < messages; n++) emitted += (await runner.cycle({ n })).emitted.length;
    const s = (performance.now() - t0) / 1000;
    if (emitted !== messages * Object.keys(flow.initialTape).length)
      throw new Error("lost emissions");
    xs.push(messages / s);
  }
  return spread(xs);
}

const msgs = { unit: "msgs/s", digits: 0, better: "higher" };

await rate(ring(1, bare), 20_000, 1); // warm up the JIT
const bare1 = await rate(ring(1, bare), 50_000, 5);
row("bare cycle, 50 routes, 1 key", bare1, {
  ...msgs,
  target: "≥ 50,000 msgs/s",
  ok: bare1.median >= 50_000,
});
if (bare1.median < 50_000) missed++;
const bare10 = await rate(ring(10, bare), 10_000, 5);
row("bare cycle, 50 routes, 10 keys (10 events/msg)", bare10, msgs);

const js = await JsHandlers.open(1000);
const jsHandlers = {
  hook: js.add("hook", "payload"),
  receiver: js.add("receiver", "move(payload.n >= 0 ? 'ok' : 'no')"),
  sender: js.add("sender", "({ to: key, n: payload.n })"),
};
await js.compile();
await rate(ring(1, jsHandlers), 1_000, 1);
const js1 = await rate(ring(1, jsHandlers), 3_000, 5);
row("js handlers, 50 routes, 1 key (3 sandbox calls/msg)", js1, msgs);
const js10 = await rate(ring(10, jsHandlers), 500, 5);
row("js handlers, 50 routes, 10 keys (21 sandbox calls/msg)", js10, msgs);
js.dispose();
process.exitCode = missed ? 1 : 0;
