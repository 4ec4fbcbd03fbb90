// A process that summons one entity against a loom file and sends it intents (tests/loom/
// concurrent.test.ts runs 20 of these at once). Built library (dist/), a real process.
// argv: loomPath sends turnsPerSend bigBytes [entityId hold]; with `hold`, the entity is kept
// (its lock held) until stdin ends. SUMMON_WAIT_MS: how long to wait for another holder (300);
// SUMMON_GO: a file to wait for before summoning (racers started apart, let go at once).
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../dist/index.js";

const [loomPath, sendsArg, turnsArg, bigArg, entityId, holdArg] = process.argv.slice(2);
const sends = Number(sendsArg);
const turns = Number(turnsArg);
const big = "x".repeat(Number(bigArg));
const responses = [];
for (let s = 0; s < sends; s++) {
  for (let t = 1; t < turns; t++)
    responses.push({
      tool_calls: [
        { gate: "echo", args: { text: `${process.pid}:${s}:${t}:${t === 1 ? big : ""}` } },
      ],
    });
  responses.push({ content: `${process.pid} send ${s} done` });
}
const loom = new Loom(new JsonlStore(loomPath), {
  entityWaitMs: Number(process.env.SUMMON_WAIT_MS ?? 300),
});
const cantrip = new Cantrip({
  llm: new ScriptedLLM({ responses }),
  identity: { systemPrompt: "worker" },
  circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: turns + 1 }] }),
  loom,
});
const go = process.env.SUMMON_GO;
if (go) {
  process.stderr.write("ready\n");
  while (!existsSync(go)) await sleep(2);
}
const entity = cantrip.summon(entityId ? { entity: entityId } : {});
try {
  await entity.ready();
  process.stdout.write(`${entity.id}\n`);
  for (let s = 0; s < sends; s++) {
    const r = await entity.send(`intent ${s} of ${process.pid}`);
    if (r.status !== "terminated") throw new Error(`send ${s}: ${r.status}`);
  }
  if (holdArg) {
    process.stdout.write("holding\n");
    process.stdin.resume();
    await new Promise((r) => process.stdin.once("end", r));
  }
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 1;
} finally {
  entity.dispose();
  loom.close();
}
