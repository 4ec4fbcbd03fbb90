// Fencing under a real fault: the worker holding a cast is frozen (SIGSTOP) in the cast's 2nd LLM
// call, past its lock; the other worker takes the cast over and finishes it. Then the frozen
// worker wakes (SIGCONT) with its call answered: its late turn is refused (loom_fenced), never
// merged, and the loom keeps each turn exactly once. The refusal is that cast's alone: the woken
// worker then takes a new cast on the same loom and finishes it.
import { expect, it } from "vitest";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { handoverScene } from "./support/handover.js";
import { cleanupAfterEach, QUEUE_NEEDS } from "./support/queue-scene.js";
import { needs } from "../support/needs.js";

const server = usePostgres();
const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS, noPostgres).describe(
  "a worker frozen past its lock",
  { timeout: 180_000 },
  () => {
    it("SIGSTOP, take-over, SIGCONT: the late turn is refused, the loom stays exactly-once", async () => {
      const s = await handoverScene(await server().createDatabase(), cleanup);
      const first = s.first.child;
      // Only the worker this test started; woken first in cleanup too, so it can be stopped.
      first.kill("SIGSTOP");
      cleanup.push(() => Promise.resolve(void first.kill("SIGCONT")));

      const q = await s.evalRun; // the second worker took the cast over and finished it
      expect(q.code, q.stderr).toBe(0);
      expect(s.second.log()).toMatch(/cast done .*: pass\)/);
      const before = await s.turns();

      await s.release(); // the frozen worker's call is answered: it will record turn 2
      first.kill("SIGCONT");
      await s.first.waitFor("cast done");
      expect(s.first.log()).toMatch(/cast done .*: error.*a late write is never merged/);

      const after = await s.turns();
      expect(after).toEqual(before);
      expect(after.size).toBe(1);
      const [turns] = [...after.values()];
      expect(turns!.map((t) => t.sequence)).toEqual([1, 2, 3]);
      expect(new Set(turns!.map((t) => t.id)).size).toBe(3);
      expect(turns!.filter((t) => t.metadata["intent"] !== undefined)).toHaveLength(1);

      // A new cast, with the woken worker the only one left: it finishes it on the same loom.
      await s.second.stop();
      const again = await s.evalAgain();
      expect(again.code, again.stderr).toBe(0);
      expect(s.first.log()).toMatch(/cast done .*: pass\)/);
      const later = await s.turns();
      expect(later.size).toBe(2);
      const fresh = [...later.entries()].find(([id]) => !after.has(id))![1];
      expect(fresh.map((t) => t.sequence)).toEqual([1, 2, 3]);
    });
  },
);
