import { describe, expect, it } from "vitest";
import { castSpell, loadSpellText } from "../../src/index.js";

// Issue 26: the TypeScript API calls a spell like a function — inputs checked the same way as
// every other surface, the typed value back.
const SPELL = `llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: [1, 2] } }] }] }
identity: {}
inputs: { type: object, properties: { n: { type: integer, maximum: 5 } }, required: [n] }
intent: "Count to {{n}}."
output_schema: { type: array, items: { type: integer } }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

describe("castSpell (issue 26)", () => {
  it("casts the spell's intent filled with the inputs and returns the typed value", async () => {
    const loaded = await loadSpellText(SPELL, "count.yaml", { loomPath: "memory" });
    const r = await castSpell(loaded, { inputs: { n: 2 } });
    expect(r.result).toEqual([1, 2]);
    expect(loaded.cantrip!.loom.turns()[0]?.metadata["intent"]).toBe("Count to 2.");
  });

  it("a bad input rejects with bad_input naming the field, before anything is cast", async () => {
    const loaded = await loadSpellText(SPELL, "count.yaml", { loomPath: "memory" });
    await expect(castSpell(loaded, { inputs: { n: 9 } })).rejects.toMatchObject({
      code: "bad_input",
      message: "input n: must be <= 5",
    });
    expect(loaded.cantrip!.loom.size).toBe(0);
  });
});
