// A process that takes one lock file again and again (tests/security/entity-lock.test.ts runs
// 20 at once). Each time it holds the lock it logs "+pid" and "-pid", then leaves the lock as a
// dead holder would (the lock names a pid that has ended), so the next take is a take-over.
// Built library (dist/), a real process. argv: lockPath logPath times deadLockText
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { takeLock } from "../../dist/loom/jsonl/index.js";

const [lockPath, logPath, timesArg, deadText, go] = process.argv.slice(2);
process.stderr.write("ready\n");
while (!existsSync(go)) await sleep(2);
for (let i = 0; i < Number(timesArg); i++) {
  await takeLock(lockPath, {
    waitMs: 120_000,
    busy: (pid) => new Error(`busy: ${pid}`),
  });
  appendFileSync(logPath, `+${process.pid}\n`);
  await sleep(3);
  appendFileSync(logPath, `-${process.pid}\n`);
  writeFileSync(lockPath, deadText); // as if this holder had been killed
}
