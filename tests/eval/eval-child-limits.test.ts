// A child spawned by call_entity inside an eval cast queries through the run's scheduler like the
// cast itself: a 429 (Retry-After) on the child's call pauses that provider for the whole run and
// is counted as the run's, instead of being retried privately by the child's own provider client.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHILD,
  DELEGATING as PARENT,
  envFor,
  evalFolder,
  runCli,
  wireServersPerTest,
} from "./support/harness.js";

const start = wireServersPerTest();

// One case on the parent, which delegates to a child spell on its own model (the same server).
const EVAL = `kind: eval
name: delegating
spells: [./adder.yaml]
cases:
  - { name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }
repeat: 1
concurrency: 1
`;

describe(
  "spell eval: a child's provider calls go through the run's scheduler",
  { timeout: 120_000 },
  () => {
    it("a 429 with Retry-After on the child's call pauses the run (counted), and the case passes", async () => {
      // Requests in order: 1 the parent (calls call_entity), 2 the child (429), 3 the child again,
      // 4 the parent's answer.
      const server = await start({ delegate: true, rateLimit: [2] });
      const dir = evalFolder(EVAL);
      writeFileSync(join(dir, "adder.yaml"), PARENT);
      writeFileSync(join(dir, "child.yaml"), CHILD);
      const r = await runCli(["eval", "eval.yaml", "--out", "out"], envFor(server), dir);
      expect(r.code, r.stderr).toBe(0);
      expect(await server.stats()).toEqual({ requests: 4, rateLimited: 1 });
      const summary = JSON.parse(readFileSync(join(dir, "out", "summary.json"), "utf8")) as {
        rate_limited: number;
        groups: Record<string, unknown>[];
      };
      expect(summary.groups[0]).toMatchObject({ passed: 1, errored: 0 });
      expect(summary.rate_limited).toBe(1);
      expect(r.stderr).toContain("rate limited 1 time(s)");
    });
  },
);
