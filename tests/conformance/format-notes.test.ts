/** What CONFORMANCE.md says about indexes, send, reason and logs_exclude, checked on the runner. */
import { describe, expect, it } from "vitest";
import { runCase } from "../../src/conformance/runner.js";
import { toCase } from "../../src/conformance/case.js";

const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const circle = { gates: ["done", "echo"], wards: [{ max_turns: 3 }] };
const run = (c: Record<string, unknown>) => runCase(toCase({ name: "t", ...c }, "t:1"));
const twoTurns = { llm: { responses: [echo("first"), done("second")] }, circle };

describe("the format notes hold for the runner", () => {
  it("annotate_reward counts loom turns from 0", async () => {
    const r = await run({
      setup: twoTurns,
      action: [{ cast: { intent: "go" } }, { then: { annotate_reward: { turn: 0, reward: 1 } } }],
      expect: { loom: { turns: [{ reward: 1, sequence: 1 }, { sequence: 2 }] } },
    });
    expect(r).toMatchObject({ status: "pass" });
  });
  it("turn_1_observation is the first turn, and no other turn_N_observation exists", async () => {
    const first = await run({
      setup: twoTurns,
      action: { cast: { intent: "go" } },
      expect: { turn_1_observation: { content: "first" } },
    });
    expect(first.status).toBe("pass");
    const other = await run({
      setup: twoTurns,
      action: { cast: { intent: "go" } },
      expect: { turn_2_observation: { content: "second" } },
    });
    expect(other.status).toBe("fail");
    // (followed by `; did you mean "turn_1_observation"?`, the one turn it reads)
    expect(other.message).toMatch(/^unsupported expectation: turn_2_observation\b/);
  });
  it("send reaches one entity; thread_N counts sends from 0", async () => {
    const r = await run({
      setup: { llm: { responses: [done("a"), done("b")] }, circle },
      action: [{ send: { intent: "one" } }, { send: { intent: "two" } }],
      expect: { results: ["a", "b"], thread_1: { result: "b" }, entities: 1, reason: "done" },
    });
    expect(r).toMatchObject({ status: "pass" });
  });
  it("reason names the ward that truncated", async () => {
    const r = await run({
      setup: { llm: { responses: [echo("1"), echo("2"), echo("3")] }, circle },
      action: { cast: { intent: "go" } },
      expect: { reason: "max_turns" },
    });
    expect(r).toMatchObject({ status: "pass" });
  });
  it("logs_exclude reads the error message too", async () => {
    const r = await run({
      setup: { llm: { responses: [{ error: { status: 400, message: "bad sekrit" } }] }, circle },
      action: { cast: { intent: "go" } },
      expect: { error: "bad", logs_exclude: "sekrit" },
    });
    expect(r).toMatchObject({ status: "fail" });
    expect(r.message).toContain('a log line contains "sekrit"');
  });
});
