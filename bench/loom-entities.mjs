// Idle summoned entities on a JSONL loom (issue 20): heap per entity at 100 and 2,000 entities
// (target: within 1.5× of each other — per-entity cost flat in the number of entities), and
// summon + send time of the first 5 entities against the last 5 of 2,000. Run by
// loom.bench.mjs; alone: `node --expose-gc bench/loom-entities.mjs` (after `npm run build`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cantrip, Circle, doneGate, JsonlStore, Loom, ScriptedLLM } from "../dist/index.js";
import { row } from "./report.mjs";

/** Entities summoned before measuring, not counted. */
const WARM = 50;

const gc = () => {
  if (!globalThis.gc) throw new Error("run with node --expose-gc");
  globalThis.gc();
  globalThis.gc();
};

/** `n` entities summoned on a fresh JSONL loom, each sent one intent and kept (idle, held). */
async function idleEntities(n) {
  const dir = mkdtempSync(join(tmpdir(), "bench-entities-"));
  const cantrip = new Cantrip({
    llm: new ScriptedLLM({
      responses: Array.from({ length: n + WARM }, () => ({ content: "ok" })),
    }),
    identity: { systemPrompt: "idle" },
    circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
    loom: new Loom(new JsonlStore(join(dir, "loom.jsonl"))),
  });
  // The first summons load and compile what every entity shares (modules, the cantrip, the
  // loom's index of entities): not counted.
  const warm = [];
  for (let i = 0; i < WARM; i++) {
    warm.push(cantrip.summon());
    await warm[i].send("warm up");
  }
  gc();
  const before = process.memoryUsage().heapUsed;
  const entities = [];
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const entity = cantrip.summon();
    await entity.send("hello");
    times.push(performance.now() - t0);
    entities.push(entity);
  }
  gc();
  const perEntity = (process.memoryUsage().heapUsed - before) / n;
  for (const e of [...warm, ...entities]) e.dispose();
  cantrip.loom.close();
  rmSync(dir, { recursive: true, force: true });
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { perEntity, first: mean(times.slice(0, 5)), last: mean(times.slice(-5)) };
}

export async function entityRows() {
  const small = await idleEntities(100);
  gc();
  const big = await idleEntities(2_000);
  const apart = Math.max(big.perEntity, small.perEntity) / Math.min(big.perEntity, small.perEntity);
  const kb = { unit: "KB", digits: 1, better: "lower" };
  row("heap per idle summoned entity (JSONL loom), 100 entities", small.perEntity / 1024, kb);
  row("heap per idle summoned entity, 2,000 entities", big.perEntity / 1024, kb);
  row("heap per entity at 2,000 vs 100, apart", apart, {
    unit: "×",
    better: "lower",
    target: "≤ 1.5×",
    ok: apart <= 1.5,
  });
  const ms = { unit: "ms", digits: 1, better: "lower" };
  row("summon + send of a new entity with 5 entities (mean of 5)", big.first, ms);
  row("summon + send of a new entity with 2,000 entities (mean of 5)", big.last, ms);
}

if (import.meta.url === `file://${process.argv[1]}`) await entityRows();
