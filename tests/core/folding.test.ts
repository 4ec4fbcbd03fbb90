import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  codeMedium,
  doneGate,
  echoGate,
  foldingView,
  llmSummary,
  Loom,
  ScriptedLLM,
  type Message,
} from "../../src/index.js";
import { toOpenAIMessages } from "../../src/llm/providers/openai/convert-to-openai.js";
import { toAnthropicMessages } from "../../src/llm/providers/anthropic/convert-to-anthropic.js";

const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });

function echoCantrip(llm: ScriptedLLM, view = foldingView({ triggerAfterTurns: 3 })) {
  return new Cantrip({
    llm,
    identity: { systemPrompt: "You are the folding test." },
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 20 }] }),
    loom: new Loom(),
    view,
  });
}

const text = (messages: readonly Message[]) => JSON.stringify(messages);

describe("folding (§6.8)", () => {
  it("replaces older turns in the view, keeps the loom whole and records the fold", async () => {
    const llm = new ScriptedLLM({
      responses: [echo("a1"), echo("a2"), echo("a3"), echo("a4"), echo("a5"), done("ok")],
      recordInputs: true,
    });
    const c = echoCantrip(llm);
    const r = await c.cast("count to five");
    expect(r.status).toBe("terminated");
    const sent = llm.invocations.map((q) => q.messages);
    // Query 5 sees 4 turns: more than 3 → turns 1-2 fold, turns 3-4 stay verbatim.
    const fifth = sent[4]!;
    expect(fifth.length).toBeLessThan(2 + 2 * 4);
    expect(fifth[0]).toEqual({ role: "system", content: "You are the folding test." });
    expect(fifth[1]).toEqual({ role: "user", content: "count to five" });
    expect(fifth[2]!.content).toMatch(/^\[Folded: turns 1-2\]\n/);
    expect(text([fifth[2]!])).toContain("a1");
    expect(text(fifth.slice(3))).not.toContain('"a1"');
    expect(text(fifth.slice(3))).toContain("a3");
    // LOOM-6: tools are sent on every query, folded or not.
    expect(llm.invocations[4]!.tools.map((t) => t.name)).toEqual(["done", "echo"]);
    // LOOM-5: every turn is in the loom; the folds are recorded beside them.
    expect(c.loom.turns().map((t) => t.gate_calls[0]?.result)).toEqual([
      "a1",
      "a2",
      "a3",
      "a4",
      "a5",
      "ok",
    ]);
    const folds = c.loom.folds();
    // Query 6 shows turns 3-5 (not more than 3): no second fold.
    expect(folds.map((f) => [f.from_sequence, f.to_sequence])).toEqual([[1, 2]]);
    expect(folds[0]!.summary).toContain("a2");
    expect(folds[0]!.from_turn_id).toBe(c.loom.turns()[0]!.id);
  });

  it("without folding the whole history is sent", async () => {
    const llm = new ScriptedLLM({
      responses: [echo("a1"), echo("a2"), echo("a3"), echo("a4"), done("ok")],
      recordInputs: true,
    });
    const c = new Cantrip({
      llm,
      identity: { systemPrompt: "s" },
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 20 }] }),
      loom: new Loom(),
    });
    await c.cast("go");
    expect(llm.invocations.map((q) => q.messages.length)).toEqual([2, 4, 6, 8, 10]);
    expect(c.loom.folds()).toEqual([]);
  });

  it("folds on the token threshold from the last query's usage (PROD-4)", async () => {
    const big = { prompt_tokens: 900, completion_tokens: 10 };
    const llm = new ScriptedLLM({
      responses: [
        { ...echo("b1"), usage: { prompt_tokens: 100, completion_tokens: 10 } },
        { ...echo("b2"), usage: { prompt_tokens: 300, completion_tokens: 10 } },
        { ...echo("b3"), usage: big },
        done("ok"),
      ],
      recordInputs: true,
    });
    const c = echoCantrip(
      llm,
      foldingView({ threshold: 0.8, contextWindow: 1000, keepRecentTurns: 1 }),
    );
    await c.cast("go");
    const sent = llm.invocations.map((q) => text(q.messages));
    expect(sent.slice(0, 3).some((s) => s.includes("[Folded:"))).toBe(false);
    expect(sent[3]).toContain("[Folded: turns 1-2]");
    expect(c.loom.folds()[0]!.estimated_tokens).toBeGreaterThan(800);
  });

  it("the folded view stays valid for both providers' formats", async () => {
    const llm = new ScriptedLLM({
      responses: [echo("c1"), echo("c2"), echo("c3"), echo("c4"), done("ok")],
      recordInputs: true,
    });
    await echoCantrip(llm, foldingView({ triggerAfterTurns: 2, keepRecentTurns: 1 })).cast("go");
    const folded = llm.invocations.at(-1)!.messages;
    expect(text(folded)).toContain("[Folded:");
    const openai = toOpenAIMessages(folded);
    const ids = new Set<string>();
    for (const m of openai) {
      if (m.role === "assistant") for (const c of m.tool_calls ?? []) ids.add(c.id);
      if (m.role === "tool") expect(ids.has(m.tool_call_id)).toBe(true);
    }
    const anthropic = toAnthropicMessages(folded);
    expect(anthropic.system).toContain("You are the folding test.");
    const uses = new Set<string>();
    anthropic.messages.forEach((m, i) => {
      if (i > 0) expect(m.role).not.toBe(anthropic.messages[i - 1]!.role);
      for (const b of m.content as { type: string; id?: string; tool_use_id?: string }[]) {
        if (b.type === "tool_use") uses.add(b.id!);
        if (b.type === "tool_result") expect(uses.has(b.tool_use_id!)).toBe(true);
      }
    });
  });

  it("the llm strategy asks an LLM for the summary", async () => {
    const writer = new ScriptedLLM({
      responses: [{ content: "echoed d1 and d2" }],
      recordInputs: true,
    });
    const llm = new ScriptedLLM({
      responses: [echo("d1"), echo("d2"), echo("d3"), done("ok")],
      recordInputs: true,
    });
    const view = foldingView({
      triggerAfterTurns: 2,
      keepRecentTurns: 1,
      summarize: llmSummary(writer),
      strategy: "llm",
    });
    await echoCantrip(llm, view).cast("go");
    expect(writer.invocations).toHaveLength(1);
    expect(text(writer.invocations[0]!.messages)).toContain("d2");
    expect(text(llm.invocations[3]!.messages)).toContain(
      "[Folded: turns 1-2]\\necho" + "ed d1 and d2",
    );
  });

  it("a summoned entity keeps its current intent in view when older turns fold", async () => {
    const llm = new ScriptedLLM({
      responses: [echo("e1"), echo("e2"), done("one"), echo("e3"), done("two")],
      recordInputs: true,
    });
    const entity = echoCantrip(
      llm,
      foldingView({ triggerAfterTurns: 2, keepRecentTurns: 1 }),
    ).summon();
    await entity.send("first");
    await entity.send("second");
    const last = llm.invocations.at(-1)!.messages;
    expect(last[1]).toEqual({ role: "user", content: "first" });
    expect(last.some((m) => m.role === "user" && m.content === "second")).toBe(true);
    expect(text(last)).toContain("[Folded: turns 1-");
    entity.dispose();
  });

  it("the code medium keeps its variables across a fold", async () => {
    const llm = new ScriptedLLM({
      responses: [
        { code: "var kept = 41;" },
        { code: "var b = 1;" },
        { code: "var c = 2;" },
        { code: "done(kept + 1)" },
      ],
      recordInputs: true,
    });
    const c = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({ medium: codeMedium, gates: [doneGate()], wards: [{ max_turns: 10 }] }),
      loom: new Loom(),
      view: foldingView({ triggerAfterTurns: 2, keepRecentTurns: 1 }),
    });
    const r = await c.cast("go");
    expect(text(llm.invocations[3]!.messages)).toContain("[Folded: turns 1-2]");
    expect(text(llm.invocations[3]!.messages.slice(3))).not.toContain("kept = 41");
    expect(r.result).toBe(42);
  });
});
