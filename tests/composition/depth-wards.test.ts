import { describe, expect, it } from "vitest";
import { childWards, parseProposal } from "../../src/circle/spawn/index.js";
import { composeWards } from "../../src/core/wards.js";
import { IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

const proposal = (wards: unknown) => parseProposal({ intent: "x", wards });

describe("ward composition onto a child (WARD-1, WARD-2)", () => {
  const parent = composeWards([
    { max_turns: 10 },
    { max_eval_ms: 500 },
    { require_done_tool: true },
    { max_depth: 3 },
  ]);

  it("takes the min of numbers: a child can only tighten", () => {
    expect(childWards(parent, undefined, proposal([{ max_turns: 100 }]))).toMatchObject({
      max_turns: 10,
    });
    expect(
      childWards(parent, undefined, proposal([{ max_turns: 2 }, { max_eval_ms: 9000 }])),
    ).toMatchObject({ max_turns: 2, max_eval_ms: 500 });
  });

  it("ORs booleans: a parent's require_done_tool binds the child", () => {
    expect(childWards(parent, undefined, proposal({ require_done_tool: false }))).toMatchObject({
      require_done_tool: true,
    });
    const loose = composeWards([{ max_turns: 3 }]);
    expect(childWards(loose, undefined, proposal({ require_done_tool: true }))).toMatchObject({
      require_done_tool: true,
    });
  });

  it("decrements max_depth, and a child cannot raise it (COMP-6)", () => {
    expect(childWards(parent, undefined, proposal([]))).toMatchObject({ max_depth: 2 });
    expect(childWards(parent, undefined, proposal([{ max_depth: 9 }]))).toMatchObject({
      max_depth: 2,
    });
    expect(childWards(composeWards([{ max_turns: 3 }]), undefined, proposal([]))).toMatchObject({
      max_depth: 0,
    }); // default 1
    expect(() =>
      childWards(composeWards([{ max_turns: 3 }, { max_depth: 0 }]), undefined, proposal([])),
    ).toThrow(/warded off: max_depth is 0/);
  });

  it("composes a child spell's wards as well, and refuses unknown wards", () => {
    expect(
      childWards(parent, composeWards([{ max_turns: 4 }]), proposal([{ max_turns: 6 }])),
    ).toMatchObject({ max_turns: 4 });
    expect(() => childWards(parent, undefined, proposal([{ max_luck: 1 }]))).toThrow(
      /unknown ward "max_luck"/,
    );
  });
});

describe("child_medium_allowlist composes by intersection", () => {
  it("keeps only the mediums every list names; absent means any", () => {
    expect(
      composeWards([{ child_medium_allowlist: ["conversation", "code"] }, { max_turns: 3 }]),
    ).toMatchObject({ child_medium_allowlist: ["conversation", "code"] });
    const parent = composeWards([
      { max_turns: 3 },
      { child_medium_allowlist: ["conversation", "code"] },
    ]);
    expect(
      childWards(parent, undefined, proposal([{ child_medium_allowlist: ["code", "bash"] }])),
    ).toMatchObject({ child_medium_allowlist: ["code"] });
    expect(childWards(parent, undefined, proposal([]))).toMatchObject({
      child_medium_allowlist: ["conversation", "code"],
    });
    expect(
      composeWards([{ child_medium_allowlist: ["bash"] }, { child_medium_allowlist: ["code"] }]),
    ).toMatchObject({ child_medium_allowlist: [] });
  });

  it("refuses a value that is not a list of names", () => {
    expect(() => composeWards([{ child_medium_allowlist: true }])).toThrow(
      /ward child_medium_allowlist must be a list of names, got true/,
    );
    expect(() => parseProposal({ intent: "x", wards: [{ child_medium_allowlist: [1] }] })).toThrow(
      /must be a number, a boolean or a list of names/,
    );
  });
});

describe("depth limits (COMP-6, COMP-11)", () => {
  it("builds a child at depth 0 without delegation gates; its attempt to delegate fails clearly", async () => {
    // The child (code medium) tries to delegate; the grandchild must never exist.
    const child = new IntentLLM("worker", (_i, turn) =>
      turn === 1
        ? {
            code: "let r; try { call_entity({ intent: 'deeper' }) } catch (e) { r = e.message } done([typeof call_entity_batch, r])",
          }
        : { done: "?" },
    );
    const parent = parentCantrip({
      llm: scripted([
        {
          tool_calls: [
            { gate: "call_entity", args: { intent: "delegate further", medium: "code" } },
          ],
        },
        { tool_calls: [{ gate: "done", args: { answer: 1 } }] },
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x");
    const answer = JSON.parse(
      result.loom.turns().find((t) => t.entity_id === result.entityId)!.gate_calls[0]!.result,
    ) as [string, string];
    expect(answer[0]).toBe("function");
    expect(answer[1]).toMatch(
      /call_entity is not defined in this circle: delegation gates are warded off when max_depth is 0/,
    );
    expect(new Set(result.loom.turns().map((t) => t.entity_id)).size).toBe(2);
    const childIdentity = result.loom.identity(result.loom.turns()[0]!.cantrip_id)!;
    expect(childIdentity.tools).toEqual(["js"]);
  });

  it("lets a child delegate while its composed max_depth is above 0: parent → child → grandchild", async () => {
    const worker = new IntentLLM("worker", (intent, turn) => {
      if (turn > 1) return { done: `${intent} done` };
      if (intent === "level 1") return { call: "call_entity", args: { intent: "level 2" } };
      if (intent === "level 2") return { call: "call_entity", args: { intent: "level 3" } };
      return { done: "level 3 done" };
    });
    const source = llmSource({}, { 1: worker, 2: worker, 3: worker });
    const parent = parentCantrip({
      llm: scripted([
        { tool_calls: [{ gate: "call_entity", args: { intent: "level 1" } }] },
        { tool_calls: [{ gate: "done", args: { answer: "top" } }] },
      ]),
      wards: [{ max_turns: 2 }, { max_depth: 2 }],
      spawn: { llms: source },
    });
    const result = await parent.cast("x");
    const entities = new Set(result.loom.turns().map((t) => t.entity_id));
    expect(entities.size).toBe(3); // parent, child, grandchild; no great-grandchild
    const grandchildTurn = result.loom.turns()[0]!;
    // The grandchild (depth 2 of 2) had no call_entity: its call is an unknown gate.
    expect(grandchildTurn.gate_calls[0]).toMatchObject({
      gate_name: "call_entity",
      is_error: true,
    });
    expect(result.loom.identity(grandchildTurn.cantrip_id)!.tools).not.toContain("call_entity");
    const parentFirst = result.loom.turns().find((t) => t.entity_id === result.entityId)!;
    const childTurn = result.loom
      .turns()
      .find((t) => t.parent_id === parentFirst.id && t.entity_id !== result.entityId)!;
    expect(result.loom.identity(childTurn.cantrip_id)!.tools).toContain("call_entity");
    expect(result.result).toBe("top");
  });
});
