import { describe, expect, it } from "vitest";
import { runCase } from "../../src/conformance/runner.js";
import { toCase } from "../../src/conformance/case.js";

const base = {
  setup: {
    llm: { responses: [{ tool_calls: [{ gate: "done", args: { answer: "42" } }] }] },
    circle: { gates: ["done"], wards: [{ max_turns: 3 }] },
  },
  action: { cast: { intent: "answer" } },
};
const run = (extra: Record<string, unknown>) =>
  runCase(toCase({ name: "t", ...base, ...extra }, "test:1"));

describe("the conformance runner can fail", () => {
  it("passes a true expectation", async () => {
    expect(await run({ expect: { result: 42, terminated: true, turns: 1 } })).toMatchObject({
      status: "pass",
    });
  });
  it("fails a wrong result", async () => {
    const r = await run({ expect: { result: 41 } });
    expect(r).toMatchObject({ status: "fail", message: 'result: expected 41, got "42"' });
  });
  it("fails an unknown expectation instead of ignoring it", async () => {
    expect(await run({ expect: { result: 42, vibes: "good" } })).toMatchObject({
      status: "fail",
      message: "unsupported expectation: vibes",
    });
  });
  it("fails an unknown setup key", async () => {
    const r = await runCase(
      toCase({ ...base, setup: { ...base.setup, gravity: 1 }, expect: { result: 42 } }, "t:1"),
    );
    expect(r).toMatchObject({ status: "fail", message: "unsupported setup key: gravity" });
  });
  it("fails a reply that is not a reply, saying which", async () => {
    const r = await runCase(
      toCase(
        { ...base, setup: { ...base.setup, llm: { responses: [null] } }, expect: { turns: 1 } },
        "t:1",
      ),
    );
    expect(r).toMatchObject({
      status: "fail",
      message: "llm.responses[0] must be a reply (content, tool_calls, code, error, ...), got null",
    });
  });
  it("fails an expected error that never happens", async () => {
    expect((await run({ expect: { error: "boom" } })).status).toBe("fail");
  });
  it("fails an unexpected error", async () => {
    const r = await runCase(
      toCase({ ...base, action: { cast: { intent: "" } }, expect: { turns: 0 } }, "t:1"),
    );
    expect(r).toMatchObject({ status: "fail", message: "unexpected error: intent is required" });
  });
  it("fails a case that expects nothing", async () => {
    expect((await run({ expect: {} })).status).toBe("fail");
  });
  it("reports a skip with its reason", async () => {
    expect(await run({ skip: "not yet", expect: { result: 1 } })).toMatchObject({
      status: "skip",
      message: "not yet",
    });
  });
  it("binds symbolic entity names and keeps them consistent", async () => {
    const two = {
      setup: {
        llm: { responses: [{ content: "a" }, { content: "b" }] },
        circle: { gates: ["done"], wards: [{ max_turns: 2 }] },
      },
      action: [{ cast: { intent: "one" } }, { cast: { intent: "two" } }],
    };
    const same = await runCase(
      toCase(
        { ...two, expect: { loom: { turns: [{ entity_id: "x" }, { entity_id: "x" }] } } },
        "t:1",
      ),
    );
    expect(same.status).toBe("fail");
    const differ = await runCase(
      toCase(
        { ...two, expect: { loom: { turns: [{ entity_id: "x" }, { entity_id: "y" }] } } },
        "t:1",
      ),
    );
    expect(differ.status).toBe("pass");
  });
  it("warns (without failing) about a script whose replies were never asked for", async () => {
    const r = await runCase(
      toCase(
        {
          setup: {
            llm: { responses: [{ content: "a" }, { content: "never asked" }] },
            circle: base.setup.circle,
          },
          action: { cast: { intent: "go" } },
          expect: { result: "a" },
        },
        "t:1",
      ),
    );
    expect(r).toMatchObject({
      status: "pass",
      warnings: ["scripted llm has 1 response(s) left unused although every loop terminated"],
    });
  });
  it("logs_exclude fails when the text is in the event log", async () => {
    const r = await run({ expect: { logs_exclude: "42" } });
    expect(r.status).toBe("fail");
    expect(r.message).toMatch(/a log line contains "42"/);
  });
  it("fails an expectation that checks nothing", async () => {
    expect(await run({ expect: { loom: {} } })).toMatchObject({
      status: "fail",
      message: "expectation loom checks nothing",
    });
    expect((await run({ expect: { error: "" } })).status).toBe("fail");
  });
});
