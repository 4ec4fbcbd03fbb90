import { Cantrip, type CantripInit } from "./core/cantrip.js";
import type * as Result from "./core/result.js";
import { Loom } from "./loom/core/index.js";
import { keepShapeOf } from "./core/kept-shapes.js";
import { Circle } from "./circle/circle.js";
import { doneGate } from "./circle/gates/done.js";
import { ScriptedLLM } from "./llm/providers/scripted.js";

/** A cast's outcome, its `loom` the package's Loom unless a Cantrip of another loom says so. */
export type CastResult<L = Loom> = Result.CastResult<L>;
export type CastTerminated<L = Loom> = Result.CastTerminated<L>;
export type CastTruncated<L = Loom> = Result.CastTruncated<L>;
export type CastFailed<L = Loom> = Result.CastFailed<L>;

/**
 * The package's Cantrip (exported as `Cantrip`): core's, with an in-memory loom injected when
 * none is given (core builds no loom of its own). `result.loom` is then a Loom: threads,
 * exports, rewards. Its own name keeps one class named Cantrip (core/cantrip.ts).
 */
export class DefaultCantrip extends Cantrip<Loom> {
  constructor(init: Omit<CantripInit<Loom>, "loom"> & { loom?: Loom }) {
    super({ ...init, loom: init.loom ?? new Loom() });
    // One kept from the first on (core/kept-shapes.ts): a cast's nextCantrip is a new one, and a
    // program may make one per cast. Made of real parts (a scripted model with no reply, a
    // conversation circle with only done, a memory loom), so its presentation and identity keep
    // theirs too; it is never cast.
    keepShapeOf(
      DefaultCantrip,
      () =>
        new DefaultCantrip({
          llm: new ScriptedLLM({ responses: [] }),
          identity: {},
          circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 1 }] }),
        }),
    );
  }
}
