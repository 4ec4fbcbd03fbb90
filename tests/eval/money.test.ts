// Money as people read it, one function for the eval progress line and the eval summary.
import { describe, expect, it } from "vitest";
import { evalProgress } from "../../src/cli/eval-progress.js";
import { formatMoney } from "../../src/eval/money.js";
import { summaryText, Tally, type ResultRow } from "../../src/eval/summary.js";

const row = (cost: number): ResultRow => ({
  spell: "adder.yaml",
  llm: "openai/gpt-4.1",
  case: "A",
  repeat: 0,
  status: "pass",
  score: 1,
  reason: "1/1 held",
  cast_status: "terminated",
  cast_reason: "done",
  turns: 1,
  tokens: 15,
  cost_usd: cost,
  latency_ms: 10,
  entity_id: "e1",
  last_turn_id: "t1",
  location: "eval.yaml:1:1",
});

describe("formatMoney", () => {
  it("three decimals under a dollar, two from a dollar, and a floor under a tenth of a cent", () => {
    expect(formatMoney(0.0123)).toBe("$0.012");
    expect(formatMoney(0.5)).toBe("$0.500");
    expect(formatMoney(0.00012)).toBe("<$0.001");
    expect(formatMoney(0.0004999)).toBe("<$0.001");
    expect(formatMoney(0)).toBe("$0");
    expect(formatMoney(1.234)).toBe("$1.23");
    expect(formatMoney(12.5)).toBe("$12.50");
  });

  it("the terminal's bar loads cli-progress on first use and runs (start, update, stop)", async () => {
    const tally = new Tally();
    tally.add(row(0.5), 0, 0);
    const progress = await evalProgress(true, () => undefined);
    expect(() => {
      progress.start(1);
      progress.update(tally);
      progress.stop(tally, 1);
    }).not.toThrow();
  });

  it("the progress line and the summary show the same readable figure", async () => {
    const tally = new Tally();
    tally.add(row(0.0123), 0, 0);
    let line = "";
    const progress = await evalProgress(false, (t) => (line += t));
    progress.start(1);
    progress.update(tally);
    progress.stop(tally, 1);
    expect(line).toContain(" $0.012\n");
    expect(line).not.toContain("0.0123");
    expect(summaryText(tally.summaries(1))).toContain("cost $0.012 ");
  });
});
