// `spell run FILE --repeat K`: K independent casts of the spell's intent through the eval
// scheduler, with eval's progress and summary; a cast passes when it ended by `done`.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passAtK, passHatK } from "../../src/eval/stats.js";
import { runCli } from "../eval/support/harness.js";
import { ADDER_SPELL as SPELL, alternatingWire } from "../support/adder-wire.js";

/** Odd requests answer by calling done, even ones with text: half the casts end by done. */
const wire = alternatingWire();
beforeAll(() => wire.start());
afterAll(() => wire.stop());

describe("spell run --repeat", { timeout: 90_000 }, () => {
  it("casts K times through the eval scheduler: eval's progress, summary and report; passes are casts ended by done", async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-repeat-"));
    writeFileSync(join(dir, "adder.yaml"), SPELL);
    const env = { R_BASE: `${wire.origin}/v1`, R_KEY: "sk-test-repeat-000000" };
    const r = await runCli(
      ["run", "adder.yaml", "--repeat", "4", "--concurrency", "2", "--out", "report"],
      env,
      dir,
    );
    expect(r.stderr).toMatch(/4\/4 casts/); // eval's progress line
    expect(r.code).toBe(0);
    expect(wire.requests).toHaveLength(4);
    const rows = readFileSync(join(dir, "report", "results.jsonl"), "utf8")
      .trim()
      .split("\n");
    const statuses = rows.map((l) => (JSON.parse(l) as { status: string }).status).sort();
    expect(statuses).toEqual(["fail", "fail", "pass", "pass"]);
    const summary = JSON.parse(readFileSync(join(dir, "report", "summary.json"), "utf8")) as {
      groups: { casts: number; pass_rate: number; pass_at_k: number; pass_hat_k: number }[];
    };
    expect(summary.groups[0]).toMatchObject({
      casts: 4,
      pass_rate: 0.5,
      pass_at_k: passAtK(4, 2, 4),
      pass_hat_k: passHatK(4, 2, 4),
    });
    expect(r.stdout).toContain("2/4 passed (50");
    expect(r.stdout).toContain("report: report");
  });
});
