// The loom (issue 11): append throughput with and without fsync (target ≥ 100k appends/s
// without), loading a 100,000-turn loom (target ≤ 1 s), extracting a thread 10,000 turns deep,
// and replaying 100 code turns (a fork from turn 100, a resumed entity) against running the same
// 100 turns with their gate answered from memory (target: the replay costs no more).
// Issue 20: `spell loom export` of a big loom into a pipe (gzip), its peak RSS (target: bounded,
// not growing with the loom: a 64 MB loom is exported first to compare). The big loom's size is SPELLBOOK_BENCH_EXPORT_MB (default
// 1024; writing it takes a minute on a slow disk); 0 skips the row.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
import { newId } from "../dist/core/ids.js";

const dir = mkdtempSync(join(tmpdir(), "bench-loom-"));
const outcome = { type: "continue" };
const usage = { promptTokens: 120, completionTokens: 30, cachedTokens: 0 };

/**
 * Appends `n` turns, one chain per `chain` turns (a realistic small turn: one gate call). With
 * `realIds`, each turn and entity gets its id from `newId` as the engine's do (UUIDv7-based).
 */
function appendTurns(loom, n, chain = n, realIds = false) {
  const head = { id: "", parentId: null, cantripId: "cantrip_bench", entityId: "", sequence: 0 };
  const cost = { usage, durationMs: 12, extra: undefined };
  let entity = "";
  for (let i = 0; i < n; i++) {
    const seq = i % chain;
    if (seq === 0) entity = realIds ? newId("ent") : `ent_${Math.floor(i / chain)}`;
    const previous = head.id;
    head.id = realIds ? newId("turn") : `turn_${i}`;
    head.parentId = seq === 0 ? null : previous;
    head.entityId = entity;
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
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  appendTurns(loom, n, 100, true);
  const s = (performance.now() - t0) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  loom.close();
  return {
    perSecond: n / s,
    perCpuSecond: n / ((user + system) / 1e6),
    bytes: statSync(path).size,
  };
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
  `append, no fsync: ${Math.round(plain.perSecond).toLocaleString("en")} turns/s, ${Math.round(plain.perCpuSecond).toLocaleString("en")} per CPU second (${N.toLocaleString("en")} turns with newId ids, ${(plain.bytes / 1e6).toFixed(1)} MB) — target ≥ 100,000/s`,
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
/** A loom of about `mb` megabytes: chained turns of ~2 KB. */
function bigLoom(path, mb) {
  const loom = new Loom(new JsonlStore(path));
  const head = { id: "", parentId: null, cantripId: "cantrip_bench", entityId: "e", sequence: 0 };
  const cost = { usage, durationMs: 12, extra: undefined };
  const pad = "x".repeat(2000);
  const n = Math.ceil((mb * 1e6) / 2300);
  for (let i = 0; i < n; i++) {
    head.id = `turn_${i}`;
    head.parentId = i ? `turn_${i - 1}` : null;
    head.sequence = i + 1;
    loom.recordTurn(
      head,
      { utterance: `u${i} ${pad}`, observation: `o${i}`, gateCalls: [] },
      cost,
      outcome,
    );
  }
  loom.close();
  return statSync(path).size;
}

/** `spell loom export FILE | gzip -1 > /dev/null`: the exporter's peak RSS (/usr/bin/time). */
async function exportIntoPipe(path) {
  const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "run.js");
  const rssFile = join(dir, "rss.txt");
  const closed = (child) =>
    new Promise((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
    });
  const gzip = spawn("gzip", ["-1"], { stdio: ["pipe", "ignore", "inherit"] });
  const gzipClosed = closed(gzip);
  const t0 = performance.now();
  const args = ["-f", "%M", "-o", rssFile, process.execPath, bin, "loom", "export", path];
  const exporter = spawn("/usr/bin/time", args, {
    stdio: ["ignore", gzip.stdin, "inherit"],
    env: { PATH: process.env.PATH ?? "" },
  });
  const exporterClosed = closed(exporter);
  gzip.stdin.destroy(); // the exporter holds the pipe's write end; gzip ends when it exits
  const [code] = await Promise.all([exporterClosed, gzipClosed]);
  if (code !== 0) throw new Error(`loom export exited ${code}`);
  const rssMb = Number(readFileSync(rssFile, "utf8").trim()) / 1024;
  return { rssMb, s: (performance.now() - t0) / 1000 };
}

const exportMb = Number(process.env.SPELLBOOK_BENCH_EXPORT_MB ?? 1024);
if (exportMb > 0 && existsSync("/usr/bin/time")) {
  for (const mb of [64, exportMb]) {
    const path = join(dir, `export-${mb}.jsonl`);
    const bytes = bigLoom(path, mb);
    const { rssMb, s } = await exportIntoPipe(path);
    console.log(
      `loom export of a ${(bytes / 1e6).toFixed(0)} MB loom into a pipe (| gzip -1): peak RSS ${rssMb.toFixed(0)} MB, ${s.toFixed(1)} s — target: bounded, not growing with the loom (compare the 64 MB row; before issue 20: 1.8–2.2 GB at 1 GB)`,
    );
    rmSync(path, { force: true });
  }
} else {
  console.log(
    `loom export into a pipe: skipped (${exportMb > 0 ? "no /usr/bin/time" : "SPELLBOOK_BENCH_EXPORT_MB=0"})`,
  );
}
rmSync(dir, { recursive: true, force: true });

const { entityRows } = await import("./loom-entities.mjs");
await entityRows();
