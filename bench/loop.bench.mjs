// Engine overhead per turn (issue 2): the real loop with the scripted LLM and a JSONL loom,
// against a minimal hand-written loop (messages array, fake model, one writeSync per turn)
// in the same process. Also CLI start: `spell --help` and a 1-turn `spell run` vs `node -e ''`.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
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
  ScriptedLLM,
} from "../dist/index.js";

const dir = mkdtempSync(join(tmpdir(), "bench-loop-"));
const usage = { prompt_tokens: 10, completion_tokens: 5 };

function script(n) {
  const responses = [];
  for (let i = 1; i < n; i++)
    responses.push({ tool_calls: [{ gate: "echo", args: { text: `turn ${i}` } }], usage });
  responses.push({ tool_calls: [{ gate: "done", args: { answer: "finished" } }], usage });
  return responses;
}

async function engine(n) {
  const path = join(dir, `engine-${n}-${Math.random()}.jsonl`);
  const cantrip = new Cantrip({
    llm: new ScriptedLLM({ responses: script(n) }),
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: n + 1 }] }),
    loom: new Loom(new JsonlStore(path)),
  });
  const t0 = performance.now();
  const r = await cantrip.cast("run the loop");
  const ms = performance.now() - t0;
  cantrip.loom.close();
  if (r.turns !== n || !r.terminated) throw new Error(`engine ran ${r.turns} turns`);
  return ms / n;
}

/** The floor: what any loop must do per turn — query, run the gate, keep messages, write a line. */
async function floor(n) {
  const fd = openSync(join(dir, `floor-${n}-${Math.random()}.jsonl`), "a");
  const responses = script(n);
  const model = async (messages, i) => responses[i];
  const messages = [
    { role: "system", content: "bench" },
    { role: "user", content: "run the loop" },
  ];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const reply = await model(messages, i);
    const call = reply.tool_calls[0];
    const result = call.gate === "echo" ? call.args.text : call.args.answer;
    messages.push({
      role: "assistant",
      content: null,
      toolCalls: [{ id: `c${i}`, name: call.gate, arguments: JSON.stringify(call.args) }],
    });
    messages.push({ role: "tool", toolCallId: `c${i}`, content: result });
    writeSync(
      fd,
      JSON.stringify({
        id: `t${i}`,
        parent_id: i ? `t${i - 1}` : null,
        utterance: "",
        gate_calls: [
          { gate_name: call.gate, arguments: JSON.stringify(call.args), result, is_error: false },
        ],
        metadata: { timestamp: new Date().toISOString() },
      }) + "\n",
    );
    if (call.gate === "done") break;
  }
  const ms = performance.now() - t0;
  closeSync(fd);
  return ms / n;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function measure(fn, n, reps) {
  const xs = [];
  for (let i = 0; i < reps; i++) {
    globalThis.gc?.();
    xs.push(await fn(n));
  }
  return median(xs);
}

await engine(1000); // warm up the JIT on both paths
await floor(1000);
const e1k = await measure(engine, 1000, 5);
// Engine and floor alternate, and the ratio is the median of the pairs' ratios: load from other
// processes on a shared machine falls on both sides of a pair alike.
const e10ks = [];
const f10ks = [];
const pairs = [];
for (let i = 0; i < 5; i++) {
  globalThis.gc?.();
  const e = await engine(10000);
  globalThis.gc?.();
  const f = await floor(10000);
  e10ks.push(e);
  f10ks.push(f);
  pairs.push(e / f);
}
const e10k = median(e10ks);
const f10k = median(f10ks);

function timeCmd(args, reps = 9) {
  const xs = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: "ignore" });
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
    xs.push(performance.now() - t0);
  }
  return median(xs);
}
const nodeMs = timeCmd(["-e", ""]);
const helpMs = timeCmd(["bin/run.js", "--help"]);
const runMs = timeCmd([
  "bin/run.js",
  "run",
  "grimoire/04-cantrip.yaml",
  "--loom",
  "memory",
  "--quiet",
]);
rmSync(dir, { recursive: true, force: true });

const rows = [
  ["engine per turn, N=1,000", `${(e1k * 1000).toFixed(1)} µs`, ""],
  ["engine per turn, N=10,000", `${(e10k * 1000).toFixed(1)} µs`, ""],
  ["floor per turn, N=10,000", `${(f10k * 1000).toFixed(1)} µs`, ""],
  ["engine/floor at N=10,000", `${median(pairs).toFixed(2)}×`, "target ≤ 3× (median of 5 pairs)"],
  ["engine N=10,000 / N=1,000", `${(e10k / e1k).toFixed(2)}×`, "target ≤ 1.2×"],
  ["node -e ''", `${nodeMs.toFixed(0)} ms`, ""],
  ["spell --help", `${helpMs.toFixed(0)} ms (${(helpMs / nodeMs).toFixed(2)}×)`, "target ≤ 2×"],
  [
    "spell run (1 spell, 2 turns)",
    `${runMs.toFixed(0)} ms (${(runMs / nodeMs).toFixed(2)}×)`,
    "target ≤ 2.5×",
  ],
];
const w = Math.max(...rows.map((r) => r[0].length));
for (const [k, v, t] of rows) console.log(`${k.padEnd(w)}  ${v.padEnd(22)} ${t}`);
