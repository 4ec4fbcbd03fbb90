import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  ScriptedLLM,
  doneGate,
  loadSpellText,
  type ScriptedResponse,
} from "../../src/index.js";

// Seed 002, Cantrip: "Construct a cantrip and inspect it. Cast it twice and observe that the
// returned `next_cantrip` carries forward runtime configuration." Ours: `result.nextCantrip`.
const answers = (...words: string[]): ScriptedResponse[] =>
  words.map((w) => ({ tool_calls: [{ gate: "done", args: { answer: w } }] }));

const build = () =>
  new Cantrip({
    llm: new ScriptedLLM({ responses: answers("one", "two", "three") }),
    identity: { systemPrompt: "Answer through done." },
    circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
  });

describe("seed 002: a cast returns the next cantrip (next_cantrip)", () => {
  it("cast it twice: the cantrip cast is unchanged (the same replies), nextCantrip goes on", async () => {
    const cantrip = build();
    const before = { id: cantrip.id, llm: cantrip.llm, identity: cantrip.identity };
    const first = await cantrip.cast("first");
    const second = await cantrip.cast("second");
    // The seed: the cantrip cast stays unchanged, so casting it again starts where it stood.
    expect([first.result, second.result]).toEqual(["one", "one"]);

    // Same identity and circle (the same values), the same id, loom and view.
    const next = first.nextCantrip;
    expect(next).toBeInstanceOf(Cantrip);
    expect(next).not.toBe(cantrip);
    expect(next.id).toBe(cantrip.id);
    expect(next.identity).toBe(cantrip.identity);
    expect(next.circle).toBe(cantrip.circle);
    expect(next.loom).toBe(cantrip.loom);
    expect(next.view).toBe(cantrip.view);
    // The runtime state carried forward: an LLM of its own, at the place the cast left it.
    expect(next.llm).not.toBe(cantrip.llm);
    expect((await next.cast("again")).result).toBe("two");
    expect((await next.cast("again")).result).toBe("two");
    expect((await second.nextCantrip.cast("again")).result).toBe("two");

    // The cantrip that was cast is unchanged as a value: frozen, the same fields.
    expect(Object.isFrozen(cantrip)).toBe(true);
    expect({ id: cantrip.id, llm: cantrip.llm, identity: cantrip.identity }).toEqual(before);
    expect(cantrip.llm).toBe(before.llm);
    // Casting the next cantrip moved nothing of the cantrip's: it still answers "one".
    expect((await cantrip.cast("third")).result).toBe("one");
  });

  it("chains: next of next goes on, and the loom keeps one identity record", async () => {
    const cantrip = build();
    const a = await cantrip.cast("a");
    const b = await a.nextCantrip.cast("b");
    const c = await b.nextCantrip.cast("c");
    expect([a.result, b.result, c.result]).toEqual(["one", "two", "three"]);
    // Three independent entities, one cantrip (CANTRIP-2, IDENTITY-4).
    expect(new Set([a.entityId, b.entityId, c.entityId]).size).toBe(3);
    const cantrips = new Set(cantrip.loom.turns().map((t) => t.cantrip_id));
    expect([...cantrips]).toEqual([cantrip.id]);
    expect(cantrip.loom.identity(cantrip.id)).toBeDefined();
  });

  it("a result prints and encodes as the outcome alone (nextCantrip is not enumerable)", async () => {
    const result = await build().cast("q");
    expect(Object.keys(result)).not.toContain("nextCantrip");
    expect(JSON.parse(JSON.stringify({ ...result, loom: null }))).not.toHaveProperty("nextCantrip");
    expect(result.nextCantrip).toBeDefined();
  });

  it("a loaded spell's cantrip (a priced scripted llm) carries its script forward", async () => {
    const loaded = await loadSpellText(
      `llm:
  provider: scripted
  price: { input: 1, output: 1 }
  responses:
    - tool_calls: [{ gate: done, args: { answer: first } }]
    - tool_calls: [{ gate: done, args: { answer: second } }]
identity: { system_prompt: Answer. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`,
      "next.yaml",
      { loomPath: "memory" },
    );
    const cantrip = loaded.cantrip!;
    const first = await cantrip.cast("go");
    expect(first.result).toBe("first");
    const again = await first.nextCantrip.cast("go");
    expect(again.result).toBe("second");
    expect(again.usage.costUsd).toBeGreaterThanOrEqual(0); // still priced
    expect(first.nextCantrip.source).toBe(cantrip.source);
  });
});
