import { Cantrip, type CantripInit } from "./core/cantrip.js";
import type * as Result from "./core/result.js";
import { Loom } from "./loom/core/index.js";

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
  }
}
