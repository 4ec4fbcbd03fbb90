// The loom (issue 11): append throughput with and without fsync (target ≥ 100k appends/s
// without), loading a 100,000-turn loom (target ≤ 1 s), extracting a thread 10,000 turns deep,
// and replaying 100 code turns (a fork from turn 100, a resumed entity) against running the same
// 100 turns with their gate answered from memory (target: the replay costs no more).
// Issue 20: `spell loom export` of a big loom into a pipe (gzip), its peak RSS (target: bounded,
// not growing with the loom: a 64 MB loom is exported first to compare). The big loom's size is SPELLBOOK_BENCH_EXPORT_MB (default
// 1024; writing it takes a minute on a slow disk); 0 skips the row.
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
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
import { interleave, median, ratio } from "./paired.mjs";
import { rounds, row, spread } from "./report.mjs";

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

/**
 * The floor of an append: what any JSONL loom must do per turn — make the ids, build the record,
 * JSON.stringify it, one write. Same turns as appendTurns(…, 100, true); seconds per turn.
 */
function floorAppends(n) {
  const fd = openSync(join(dir, `floor-${Math.random()}.jsonl`), "a");
  const t0 = performance.now();
  let entity = "";
  let previous = null;
  for (let i = 0; i < n; i++) {
    const seq = i % 100;
    if (seq === 0) entity = newId("ent");
    const id = newId("turn");
    const record = {
      type: "turn",
      id,
      parent_id: seq === 0 ? null : previous,
      cantrip_id: "cantrip_bench",
      entity_id: entity,
      role: "turn",
      sequence: seq + 1,
      utterance: `echo({ text: "step ${i}" })`,
      observation: `echo: step ${i}`,
      gate_calls: [
        {
          gate_name: "echo",
          arguments: `{"text":"step ${i}"}`,
          result: `step ${i}`,
          is_error: false,
        },
      ],
      metadata: {
        tokens_prompt: 120,
        tokens_completion: 30,
        tokens_cached: 0,
        duration_ms: 12,
        timestamp: new Date().toISOString(),
      },
      reward: null,
      terminated: false,
      truncated: false,
      reason: null,
    };
    writeSync(fd, `${JSON.stringify(record)}\n`);
    previous = id;
  }
  const s = (performance.now() - t0) / 1000;
  closeSync(fd);
  return s / n;
}

/** The floor of a load: read the file, split it into lines, JSON.parse each; ms. */
function floorLoad(path) {
  const t0 = performance.now();
  const lines = readFileSync(path, "utf8").split("\n");
  let turns = 0;
  for (const l of lines) if (l && JSON.parse(l).type === "turn") turns++;
  if (turns === 0) throw new Error("no turns");
  return performance.now() - t0;
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
  return { run: median(runs), replay: median(replays), resume: median(resumes) };
}

const N = 100_000;
const plain = appends(N, false);
const synced = appends(2_000, true);
const perS = { unit: "turns/s", digits: 0, better: "higher" };
row("append, no fsync", plain.perSecond, {
  ...perS,
  target: "≥ 100,000/s",
  ok: plain.perSecond >= 100_000,
  note: `(${N.toLocaleString("en")} turns with newId ids, ${(plain.bytes / 1e6).toFixed(1)} MB)`,
});
row("append, no fsync, per CPU second", plain.perCpuSecond, perS);
row("append, fsync each (2,000 turns)", synced.perSecond, perS);
// The loom's append against its floor, alternately in each round: a ratio load does not move.
appendTurns(new Loom(new JsonlStore(join(dir, "warm.jsonl"))), 20_000, 100, true);
floorAppends(20_000);
const appendPairs = await interleave(rounds(5), {
  loom: () => {
    const loom = new Loom(new JsonlStore(join(dir, `pair-${Math.random()}.jsonl`)));
    const t0 = performance.now();
    appendTurns(loom, 20_000, 100, true);
    const s = (performance.now() - t0) / 1000;
    loom.close();
    return s / 20_000;
  },
  floor: () => floorAppends(20_000),
});
row(
  "append / floor (ids, JSON.stringify, one write per turn)",
  ratio(appendPairs.loom, appendPairs.floor),
  {
    better: "lower",
    paired: true,
    note: `(20,000 turns a round; floor ${(1e6 * median(appendPairs.floor)).toFixed(1)} µs/turn)`,
  },
);

const big = join(dir, "append-false.jsonl");
const loads = await interleave(rounds(3), {
  loom: () => load(big, N).ms,
  floor: () => floorLoad(big),
});
row(`load a ${N.toLocaleString("en")}-turn loom`, spread(loads.loom), {
  unit: "ms",
  digits: 0,
  better: "lower",
  target: "≤ 1000 ms",
  ok: median(loads.loom) <= 1000,
});
row("load / floor (read the file, JSON.parse each line)", ratio(loads.loom, loads.floor), {
  better: "lower",
  paired: true,
});

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
const ms1 = { unit: "ms", digits: 1, better: "lower" };
row("thread at depth 10,000, the first time (index built)", first, ms1);
row("thread at depth 10,000, after", again, ms1);
row("load of the 10,000-turn loom", deepLoad, { ...ms1, digits: 0 });

const code = await replayVersusRun(100);
const ms0 = { unit: "ms", digits: 0, better: "lower" };
row("100 code turns run, the gate answered from memory", code.run, ms0);
row("100 code turns, fork replay", code.replay, {
  ...ms0,
  target: "≤ the run",
  ok: code.replay <= code.run,
});
row("100 code turns, resumed entity (load + replay + 1 turn)", code.resume, ms0);
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
  for (const [i, mb] of [64, exportMb].entries()) {
    const path = join(dir, `export-${mb}.jsonl`);
    const bytes = bigLoom(path, mb);
    const { rssMb, s } = await exportIntoPipe(path);
    const label = i === 0 ? "64 MB" : "big (SPELLBOOK_BENCH_EXPORT_MB)";
    row(`loom export of a ${label} loom into a pipe (| gzip -1): peak RSS`, rssMb, {
      unit: "MB",
      digits: 0,
      better: "lower",
      target: "bounded: as the 64 MB row's (before issue 20: 1.8–2.2 GB at 1 GB)",
      note: `(${(bytes / 1e6).toFixed(0)} MB loom, ${s.toFixed(1)} s)`,
    });
    rmSync(path, { force: true });
  }
} else {
  row(
    "loom export into a pipe",
    `skipped (${exportMb > 0 ? "no /usr/bin/time" : "SPELLBOOK_BENCH_EXPORT_MB=0"})`,
  );
}
rmSync(dir, { recursive: true, force: true });

const { entityRows } = await import("./loom-entities.mjs");
await entityRows();
