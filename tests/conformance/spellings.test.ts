import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCase, runFile } from "../../src/conformance/runner.js";
import { toCase } from "../../src/conformance/case.js";
import { gateSpelling } from "../../src/conformance/spellings.js";
import { fromOpenAICompletion } from "../../src/llm/providers/openai/map-openai-response.js";
import { OpenAIStreamAccumulator } from "../../src/llm/providers/openai/openai-stream.js";
import type { OpenAIChunk } from "../../src/llm/providers/openai/wire.js";
import { chatCompletionToSSE } from "../../src/llm/loopback/stream-body.js";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";

const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });
const run = (c: Record<string, unknown>) => runCase(toCase({ name: "t", ...c }, "t:1"));

describe("gate objects in both spellings", () => {
  it("moves behaviour written on the gate under behavior", () => {
    expect(gateSpelling({ name: "slow", delay_ms: 5, result: "x" }, "g")).toEqual({
      name: "slow",
      behavior: { delay_ms: 5, result: "x" },
    });
  });
  it("accepts both spellings when they agree, and ephemeral under behavior", () => {
    expect(
      gateSpelling({ name: "r", error: "boom", behavior: { error: "boom", ephemeral: true } }, "g"),
    ).toEqual({ name: "r", ephemeral: true, behavior: { error: "boom" } });
  });
  it("leaves a registry gate with only ephemeral under behavior a registry gate", () => {
    expect(gateSpelling({ name: "read", behavior: { ephemeral: true } }, "g")).toEqual({
      name: "read",
      ephemeral: true,
    });
  });
  it.each<[Record<string, unknown>, Record<string, unknown>]>([
    [
      { name: "slow", behavior: "delay", delay_ms: 5, result: "r" },
      { delay_ms: 5, result: "r" },
    ],
    [{ name: "bad", behavior: "error", error: "boom" }, { error: "boom" }],
    [{ name: "bad", behavior: "error" }, { error: "gate failed" }],
    [{ name: "t", behavior: "throw" }, { throw: true }],
    // The spec's own form: behavior: throw, its message under error: (as throw: "…" says it).
    [{ name: "t", behavior: "throw", error: "disk full" }, { error: "disk full" }],
    [{ name: "c", behavior: "stateful" }, { stateful: true }],
  ])("reads behavior written as a word, its settings beside it: %j", (gate, behavior) => {
    expect(gateSpelling(gate, "g")).toEqual({ name: gate["name"], behavior });
  });
  it("refuses a behaviour word it does not know, or settings of another behaviour", () => {
    expect(() => gateSpelling({ name: "x", behavior: "sleep" }, "g")).toThrow(
      /behavior "sleep" of gate x is not one of delay, error, throw, stateful/,
    );
    expect(() => gateSpelling({ name: "x", behavior: "delay", error: "e" }, "g")).toThrow(
      /behavior "delay" of gate x takes delay_ms, result; not error/,
    );
  });
  it("runs a case whose gate is written behavior: delay with delay_ms and result beside it", async () => {
    const r = await run({
      setup: {
        llm: {
          responses: [{ tool_calls: [{ gate: "slow", args: {} }] }, done("ok")],
        },
        circle: {
          gates: ["done", { name: "slow", behavior: "delay", delay_ms: 1, result: "slept" }],
          wards: [{ max_turns: 3 }],
        },
      },
      action: { cast: { intent: "go" } },
      expect: { result: "ok", gate_results: ["slept", "ok"] },
    });
    expect(r.message ?? "").toBe("");
    expect(r.status).toBe("pass");
  });
  it("runs a case whose gate is written behavior: throw with its message under error:", async () => {
    const r = await run({
      setup: {
        llm: {
          responses: [{ tool_calls: [{ gate: "boom", args: {} }] }, done("ok")],
        },
        circle: {
          gates: ["done", { name: "boom", behavior: "throw", error: "disk full" }],
          wards: [{ max_turns: 3 }],
        },
      },
      action: { cast: { intent: "go" } },
      expect: { result: "ok", gate_results: ["disk full", "ok"] },
    });
    expect(r.message ?? "").toBe("");
    expect(r.status).toBe("pass");
  });
  it("fails a case whose gate says two different things", async () => {
    const r = await run({
      setup: {
        llm: { responses: [done("x")] },
        circle: {
          gates: ["done", { name: "bad", error: "boom", behavior: { error: "bang" } }],
          wards: [{ max_turns: 2 }],
        },
      },
      action: { cast: { intent: "go" } },
      expect: { result: "x" },
    });
    expect(r.status).toBe("fail");
    expect(r.message).toContain('gate bad says error: "boom" and behavior.error: "bang"');
  });
});

describe("scripted replies left unused", () => {
  const circle = { gates: ["done", "echo"], wards: [{ max_turns: 2 }] };
  it("warns, without failing, when every loop terminated with replies left", async () => {
    const r = await run({
      setup: { llm: { responses: [done("a"), done("b")] }, circle },
      action: { cast: { intent: "go" } },
      expect: { result: "a" },
    });
    expect(r.status).toBe("pass");
    expect(r.warnings).toEqual([
      "scripted llm has 1 response(s) left unused although every loop terminated",
    ]);
  });
  it("says nothing when a ward stopped the loop first", async () => {
    const r = await run({
      setup: { llm: { responses: [echo("1"), echo("2"), done("c")] }, circle },
      action: { cast: { intent: "go" } },
      expect: { truncated: true },
    });
    expect(r).toMatchObject({ status: "pass" });
    expect(r.warnings).toBeUndefined();
  });
  it("still fails a script that runs out", async () => {
    const r = await run({
      setup: { llm: { responses: [echo("1")] }, circle },
      action: { cast: { intent: "go" } },
      expect: { truncated: true },
    });
    expect(r.status).toBe("fail");
    expect(r.message).toContain("has no response left for query 2");
  });
});

describe("named LLMs and llm_invocations", () => {
  it("fails a prefix longer than the queries made", async () => {
    const r = await run({
      setup: {
        llm_only: { responses: [done("a")] },
        circle: { gates: ["done"], wards: [{ max_turns: 2 }] },
      },
      action: { cast: { intent: "go", llm: "llm_only" } },
      expect: { llm_invocations: [{}, {}] },
    });
    expect(r).toMatchObject({
      status: "fail",
      message: "llm_invocations: expected at least 2 queries, got 1",
    });
  });
  it("fails a role object that is not one", async () => {
    const r = await run({
      setup: {
        llm: { responses: [done("a")] },
        circle: { gates: ["done"], wards: [{ max_turns: 2 }] },
      },
      action: { cast: { intent: "go" } },
      expect: { thread: [{ who: "entity" }] },
    });
    expect(r.status).toBe("fail");
    expect(r.message).toContain("a role, or { role }");
  });
});

describe("mock_openai replies on the wire", () => {
  it("writes a scripted reply as a chat completion", () => {
    const reply = wireReplyOf("llm", { tool_calls: [{ gate: "echo", args: { t: 1 } }] }, 0);
    const { response } = fromOpenAICompletion((reply as { body: unknown }).body, "openai");
    expect(response.toolCalls).toEqual([{ id: "call_1_1", name: "echo", arguments: '{"t":1}' }]);
  });
  it("refuses a reply key it cannot write", () => {
    expect(() => wireReplyOf("llm", { code: "1" }, 2)).toThrow("llm.responses[2].code");
  });
  it("keeps a tool message as a tool result, whole or streamed", () => {
    const reply = wireReplyOf("llm", { tool_result: { tool_call_id: "nope", content: "s" } }, 0);
    const body = (reply as { body: Record<string, unknown> }).body;
    const direct = fromOpenAICompletion(body, "openai").response;
    expect(direct.toolResults).toEqual([{ toolCallId: "nope", content: "s" }]);
    const acc = new OpenAIStreamAccumulator("openai");
    for (const event of chatCompletionToSSE(body).split("\n\n")) {
      const data = event.replace(/^data: /, "");
      if (data && data !== "[DONE]") acc.push(JSON.parse(data) as OpenAIChunk);
    }
    expect(fromOpenAICompletion(acc.finish(), "openai").response.toolResults).toEqual(
      direct.toolResults,
    );
  });
});

describe("a spell's own tests in the other spellings", () => {
  it("validate and pass through spell test's runner", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "spellings-")), "s.yaml");
    writeFileSync(
      file,
      [
        "llm: scripted",
        "identity: { system_prompt: test }",
        "circle: { gates: [done], wards: [{ max_turns: 3 }] }",
        "tests:",
        "  - name: mock with a profile",
        "    setup:",
        "      llm:",
        "        provider: mock_openai",
        "        profile: local",
        "        responses: [{ tool_calls: [{ gate: tick, args: {} }] }, { content: ok }]",
        "      circle: { gates: [done, { name: tick, stateful: true }], wards: [{ max_turns: 3 }] }",
        "    action: { cast: { intent: go } }",
        "    expect:",
        "      gate_results: [1]",
        "      thread: [{ role: entity }, { role: circle }, { role: entity }]",
        "      llm_invocations: [{}]",
      ].join("\n"),
    );
    const results = await runFile(file);
    expect(results.map((r) => [r.status, r.message])).toEqual([["pass", ""]]);
  });
});

describe("the published suite's spellings of fork, child gates and ACP", () => {
  const echoes = (...texts: string[]) => texts.map(echo);
  const forkCase = (excluded: string) => ({
    setup: {
      llm: { responses: [...echoes("alpha", "beta"), done("first")], record_inputs: true },
      fork_llm: { responses: [done("second")], record_inputs: true },
      circle: { gates: ["done", "echo"], wards: [{ max_turns: 10 }] },
    },
    // one mapping with cast and then (not a list), as that suite writes it
    action: {
      cast: { intent: "walk" },
      then: { fork: { from_turn: 1, llm: "fork_llm", intent: "again" } },
    },
    expect: {
      threads: 2,
      thread_0: { turns: 3, result: "first" },
      thread_1: { turns: 2, result: "second" },
      fork_llm_invocations: [{ message_count_includes: "alpha", message_count_excludes: excluded }],
    },
  });
  it("forks after the Nth turn and reads message_count_includes/excludes as text", async () => {
    const r = await run(forkCase("beta"));
    expect(r.message).toBe("");
    expect(r.status).toBe("pass");
  });
  it("fails message_count_excludes when the fork's LLM saw the text", async () => {
    const r = await run(forkCase("alpha"));
    expect(r.status).toBe("fail");
    expect(r.message).toBe('fork_llm_invocations[0]: a message includes "alpha"');
  });
  it("gives a child a fetch gate its parent lacks, closed to every host", async () => {
    const r = await run({
      setup: {
        llm: {
          type: "code_circle",
          responses: [
            { code: 'var r = call_entity({ intent: "sub", gates: ["fetch"] });\ndone(r);' },
          ],
        },
        child_llm: {
          responses: [
            { tool_calls: [{ gate: "fetch", args: { url: "https://example.com" } }] },
            done("got it"),
          ],
        },
        circle: {
          type: "code",
          gates: ["done", "call_entity"],
          wards: [{ max_turns: 10 }, { max_depth: 1 }],
        },
      },
      action: { cast: { intent: "go" } },
      expect: {
        result: "got it",
        child_turns: [{ observation_contains: "the allowlist is empty" }, { terminated: true }],
      },
    });
    expect(r.message).toBe("");
    expect(r.status).toBe("pass");
  });
  const acp = (exchange: unknown[], expectation: Record<string, unknown>, replies: unknown[]) =>
    run({
      setup: {
        llm: { responses: replies, record_inputs: true },
        circle: { gates: ["done"], wards: [{ max_turns: 10 }] },
      },
      action: { acp_exchange: exchange },
      expect: expectation,
    });
  const init = { id: "1", method: "initialize", params: { protocolVersion: 1 } };
  it("turns a loose session/new and a string prompt into well-formed ACP requests", async () => {
    const r = await acp(
      [
        init,
        { id: "2", method: "session/new", params: {} },
        { id: "3", method: "session/prompt", params: { prompt: "say hey" } },
      ],
      {
        acp_responses: [
          { id: "1", has_result: true },
          { id: "2", result_contains: "session" },
          { id: "3", result_contains: "hey" },
        ],
        llm_invocations: [{ messages: [{ role: "user", content: "say hey" }] }],
      },
      [done("hey")],
    );
    expect(r.message).toBe("");
    expect(r.status).toBe("pass");
  });
  it("keeps a loose session's turns across string prompts", async () => {
    const r = await acp(
      [
        init,
        { id: "2", method: "session/new" },
        { id: "3", method: "session/prompt", params: { prompt: "hello there" } },
        { id: "4", method: "session/prompt", params: { prompt: "what did I say?" } },
      ],
      { llm_invocations: [{}, { messages_include: "hello there" }] },
      [{ content: "one" }, { content: "two" }],
    );
    expect(r.message).toBe("");
    expect(r.status).toBe("pass");
  });
});
