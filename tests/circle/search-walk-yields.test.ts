// The search gate's walk lets the event loop in while it walks folders that hold no text file
// (a queue worker renews its job's lock from that loop: docs/design/SCALE.md "The event loop and
// the lock"). A 5 ms timer runs during a search of 20,100 empty folders; the longest stretch
// without a tick is under half the search. Before, the walk read every folder synchronously
// after the pattern was ready: one stretch of nearly the whole search.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { searchGate } from "../../src/circle/gates/index.js";
import { SEARCH_LIMITS } from "../../src/circle/gates/search.js";
import { fileGateContext } from "../support/gate-context.js";

function emptyFolders(): string {
  const root = mkdtempSync(join(tmpdir(), "search-walk-"));
  for (let i = 0; i < 100; i++)
    for (let j = 0; j < 200; j++) mkdirSync(join(root, `d${i}`, `e${j}`), { recursive: true });
  return root;
}

describe("the search gate's walk", () => {
  it("lets timers run between folders", { timeout: 120_000 }, async () => {
    const root = emptyFolders();
    const ticks: number[] = [];
    const probe = setInterval(() => ticks.push(performance.now()), 5);
    // The gate's own 20 s bound ended this walk at a load of 10 (stress --cpu 8 and a full
    // suite): here it may take the test's whole time, which is a bound for a hang only.
    const bound = SEARCH_LIMITS.ms;
    SEARCH_LIMITS.ms = 110_000;
    try {
      const start = performance.now();
      const out = await searchGate({ root }).execute({ pattern: "x" }, fileGateContext);
      const end = performance.now();
      expect(out).toBe("no matches");
      const marks = [start, ...ticks.filter((t) => t > start && t < end), end];
      const gaps = marks.slice(1).map((t, i) => t - marks[i]!);
      const longest = Math.max(...gaps);
      expect(longest, `longest ${longest} ms of ${end - start} ms`).toBeLessThan((end - start) / 2);
    } finally {
      SEARCH_LIMITS.ms = bound;
      clearInterval(probe);
    }
  });
});
