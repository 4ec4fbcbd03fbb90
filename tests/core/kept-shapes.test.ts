import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Cantrip, Circle, doneGate, echoGate, ScriptedLLM } from "../../src/index.js";
import { keptShapes } from "../../src/core/kept-shapes.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const cantrip = (): Cantrip =>
  new Cantrip({
    llm: new ScriptedLLM({
      responses: [
        { tool_calls: [{ gate: "echo", args: { text: "one" } }] },
        { tool_calls: [{ gate: "done", args: { answer: "finished" } }] },
      ],
    }),
    identity: {},
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
  });

// core/kept-shapes.ts: one specimen per class made per cast keeps its V8 map across casts.
describe("the engine's kept shapes", () => {
  it("are made once, not per cast", async () => {
    await cantrip().cast("go");
    const kept = keptShapes();
    expect(kept).toBeGreaterThanOrEqual(5); // budget, medium turn and rules, entity, cast run
    for (let i = 0; i < 3; i++) await cantrip().cast("go");
    expect(keptShapes()).toBe(kept);
  });

  it("hold nothing of a cast: its entity is collected once it is dropped", async () => {
    let entity: ReturnType<Cantrip["summon"]> | undefined = cantrip().summon();
    const result = await entity.send("go");
    expect(result.turns).toBe(2);
    const ref = new WeakRef(entity);
    entity = undefined;
    // WeakRef targets stay alive until the end of the job that made them.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(ref.deref()).toBeUndefined();
  });
});
