// Engine overhead per turn (issue 2): the real loop with the scripted LLM and a JSONL loom,
// against a minimal hand-written loop (messages array, fake model, one writeSync per turn)
// in the same process. Also CLI start: `spell --help` and a 1-turn `spell run` vs `node -e ''`.
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
import { interleave, median, ratio, timeCommand } from "./paired.mjs";
import { rounds, row } from "./report.mjs";

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

await engine(1000); // warm up the JIT on both paths
await floor(1000);
// Engine and floor alternate within each round, and the ratio is the median of the rounds' ratios
// (with its spread): load from other processes on a shared machine falls on both sides alike.
const {
  engine1k: e1ks,
  engine: e10ks,
  floor: f10ks,
} = await interleave(rounds(5), {
  engine1k: () => engine(1000),
  engine: () => engine(10000),
  floor: () => floor(10000),
});
const e1k = median(e1ks);
const e10k = median(e10ks);
const f10k = median(f10ks);

// Start-up: the three commands alternate within each round (with NODE_EXTRA_CA_CERTS unset, as
// on a user's machine), and each ratio is the median of the rounds' ratios with its spread.
const spellRun = ["bin/run.js", "run", "grimoire/04-cantrip.yaml", "--loom", "memory", "--quiet"];
const starts = await interleave(rounds(11), {
  node: () => timeCommand(["-e", ""]),
  help: () => timeCommand(["bin/run.js", "--help"]),
  run: () => timeCommand(spellRun),
});
const nodeMs = median(starts.node);
const helpMs = median(starts.help);
const runMs = median(starts.run);
const helpRatio = ratio(starts.help, starts.node);
const runRatio = ratio(starts.run, starts.node);
rmSync(dir, { recursive: true, force: true });

row("engine per turn, N=1,000", e1k * 1000, { unit: "µs", digits: 1, better: "lower" });
row("engine per turn, N=10,000", e10k * 1000, { unit: "µs", digits: 1, better: "lower" });
row("floor per turn, N=10,000", f10k * 1000, { unit: "µs", digits: 1, better: "lower" });
const engineFloor = ratio(e10ks, f10ks);
row("engine/floor at N=10,000", engineFloor, {
  better: "lower",
  paired: true,
  target: "≤ 3×",
  ok: engineFloor.median <= 3,
});
const growth = ratio(e10ks, e1ks);
row("engine N=10,000 / N=1,000", growth, {
  better: "lower",
  paired: true,
  target: "≤ 1.2×",
  ok: growth.median <= 1.2,
});
row("node -e ''", nodeMs, { unit: "ms", digits: 0, better: "lower" });
row("spell --help", helpMs, { unit: "ms", digits: 0, better: "lower" });
row("spell --help / node -e ''", helpRatio, {
  better: "lower",
  paired: true,
  target: "≤ 2×",
  ok: helpRatio.median <= 2,
});
row("spell run (1 spell, 2 turns)", runMs, { unit: "ms", digits: 0, better: "lower" });
row("spell run (1 spell, 2 turns) / node -e ''", runRatio, {
  better: "lower",
  paired: true,
  target: "≤ 2.5×",
  ok: runRatio.median <= 2.5,
});
