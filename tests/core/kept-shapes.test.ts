import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
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

  it("hold nothing of a program's: a cast's cantrip, model, circle, loom and store are collected", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kept-shapes-"));
    try {
      // The first of each class made here or before: its specimen is made then, of stubs.
      const made = () => {
        const llm = new ScriptedLLM({
          responses: [{ tool_calls: [{ gate: "done", args: { answer: "ok" } }] }],
        });
        const circle = new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] });
        const store = new JsonlStore(join(dir, "loom.jsonl"));
        const loom = new Loom(store);
        const c = new Cantrip({ llm, identity: {}, circle, loom });
        return { c, parts: [c, llm, circle, store, loom].map((p) => new WeakRef(p)) };
      };
      let cast: ReturnType<typeof made> | undefined = made();
      // The result holds the loom and its nextCantrip: dropped with the rest.
      let result: Awaited<ReturnType<Cantrip["cast"]>> | undefined = await cast.c.cast("go");
      expect(result.result).toBe("ok");
      cast.c.loom.close();
      const parts = [...cast.parts, new WeakRef(result.nextCantrip)];
      cast = undefined;
      result = undefined;
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
      expect(parts.map((p) => p.deref())).toEqual(parts.map(() => undefined));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
