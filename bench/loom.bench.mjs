// The loom (issue 11): append throughput with and without fsync (target ≥ 100k appends/s
// without), loading a 100,000-turn loom (target ≤ 1 s), extracting a thread 10,000 turns deep,
// and replaying 100 code turns (a fork from turn 100, a resumed entity) against running the same
// 100 turns with their gate answered from memory (target: the replay costs no more).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Cantrip,
  Circle,
  codeMedium,
  doneGate,
  fork,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../dist/index.js";

const dir = mkdtempSync(join(tmpdir(), "bench-loom-"));
const outcome = { type: "continue" };
const usage = { promptTokens: 120, completionTokens: 30, cachedTokens: 0 };

/** Appends `n` turns, one chain per `chain` turns (a realistic small turn: one gate call). */
function appendTurns(loom, n, chain = n) {
  const head = { id: "", parentId: null, cantripId: "cantrip_bench", entityId: "", sequence: 0 };
  const cost = { usage, durationMs: 12, extra: undefined };
  for (let i = 0; i < n; i++) {
    const seq = i % chain;
    head.id = `turn_${i}`;
    head.parentId = seq === 0 ? null : `turn_${i - 1}`;
    head.entityId = `ent_${Math.floor(i / chain)}`;
    head.sequence = seq + 1;
    const content = {
      utterance: `echo({ text: "step ${i}" })`,
      observation: `echo: step ${i}`,
      gateCalls: [
        {
          gate_name: "echo",
          arguments: `{"text":"step ${i}"}`,
          result: `step ${i}`,
          is_error: false,
        },
      ],
    };
    loom.recordTurn(head, content, cost, outcome);
  }
}

function appends(n, fsync) {
  const path = join(dir, `append-${fsync}.jsonl`);
  const loom = new Loom(new JsonlStore(path, { fsync }));
  const t0 = performance.now();
  appendTurns(loom, n, 100);
  const s = (performance.now() - t0) / 1000;
  loom.close();
  return { perSecond: n / s, bytes: statSync(path).size };
}

function load(path, turns) {
  const t0 = performance.now();
  const loom = new Loom(new JsonlStore(path));
  if (loom.size !== turns) throw new Error(`loaded ${loom.size} turns`);
  return { ms: performance.now() - t0, loom };
}

/** A code entity of `n` turns, each calling a gate; the gate answers from a Map in memory. */
function codeCantrip(n, loom) {
  const answers = new Map(Array.from({ length: n }, (_, i) => [`k${i}`, { value: i }]));
  const lookup = {
    name: "lookup",
    description: "answers from memory",
    parameters: { type: "object", properties: { key: { type: "string" } } },
    execute: ({ key }) => answers.get(key),
  };
  const responses = Array.from({ length: n }, (_, i) => ({
    code: `var v${i} = lookup({ key: "k${i}" }).value; var total = (typeof total === "number" ? total : 0) + v${i}; total`,
  }));
  responses.push({ code: "done(total)" });
  return new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: { systemPrompt: "bench" },
    circle: new Circle({
      medium: codeMedium,
      gates: [doneGate(), lookup],
      wards: [{ max_turns: n + 2 }],
    }),
    loom,
  });
}

async function replayVersusRun(n) {
  const runs = [];
  const replays = [];
  const resumes = [];
  for (let round = 0; round < 5; round++) {
    const path = join(dir, `code-${round}.jsonl`);
    const cantrip = codeCantrip(n, new Loom(new JsonlStore(path)));
    const entity = cantrip.summon();
    let t0 = performance.now();
    const r = await entity.send("sum the values");
    runs.push(performance.now() - t0);
    entity.dispose();
    if (r.turns !== n + 1) throw new Error(`ran ${r.turns} turns`);
    const at = cantrip.loom.turns()[n - 1].id;
    // The fork's LLM answers at once: what it costs is the replay of n recorded turns.
    const forkLLM = new ScriptedLLM({ responses: [{ code: "done(total)" }] });
    t0 = performance.now();
    const f = await fork(cantrip, at, { intent: "again", llm: forkLLM });
    replays.push(performance.now() - t0);
    if (f.result !== (n * (n - 1)) / 2) throw new Error(`fork said ${f.result}`);
    // The same entity summoned again from the file (another process would do the same).
    const again = codeCantrip(0, new Loom(new JsonlStore(path)));
    t0 = performance.now();
    const resumed = again.summon({ entity: entity.id });
    const x = await resumed.send("once more");
    resumes.push(performance.now() - t0);
    resumed.dispose();
    if (x.result !== (n * (n - 1)) / 2) throw new Error(`resume said ${x.result}`);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { run: median(runs), replay: median(replays), resume: median(resumes) };
}

const N = 100_000;
const plain = appends(N, false);
const synced = appends(2_000, true);
console.log(
  `append, no fsync: ${Math.round(plain.perSecond).toLocaleString("en")} turns/s (${N.toLocaleString("en")} turns, ${(plain.bytes / 1e6).toFixed(1)} MB) — target ≥ 100,000/s`,
);
console.log(
  `append, fsync each: ${Math.round(synced.perSecond).toLocaleString("en")} turns/s (2,000 turns)`,
);

const big = join(dir, "append-false.jsonl");
const loads = [load(big, N), load(big, N), load(big, N)].map((l) => l.ms).sort((a, b) => a - b);
console.log(
  `load a ${N.toLocaleString("en")}-turn loom: ${loads[1].toFixed(0)} ms (median of 3) — target ≤ 1000 ms`,
);

const deepPath = join(dir, "deep.jsonl");
const deep = new Loom(new JsonlStore(deepPath));
appendTurns(deep, 10_000);
deep.close();
const { loom: deepLoom, ms: deepLoad } = load(deepPath, 10_000);
let t0 = performance.now();
const thread = deepLoom.thread("turn_9999");
const first = performance.now() - t0;
t0 = performance.now();
for (let i = 0; i < 10; i++) deepLoom.thread("turn_9999");
const again = (performance.now() - t0) / 10;
if (thread.length !== 10_000) throw new Error(`thread of ${thread.length}`);
console.log(
  `thread at depth 10,000: ${first.toFixed(1)} ms the first time (index built), ${again.toFixed(1)} ms after (load ${deepLoad.toFixed(0)} ms)`,
);

const code = await replayVersusRun(100);
console.log(
  `100 code turns: run with the gate answered from memory ${code.run.toFixed(0)} ms · fork replay ${code.replay.toFixed(0)} ms · resumed entity (load + replay + 1 turn) ${code.resume.toFixed(0)} ms (medians of 5) — target: replay ≤ run`,
);
rmSync(dir, { recursive: true, force: true });

const { entityRows } = await import("./loom-entities.mjs");
await entityRows();
