import { Cantrip as CoreCantrip, type CantripInit } from "./core/cantrip.js";
import { Loom } from "./loom/loom.js";

/**
 * The package's Cantrip: core's, with an in-memory loom injected when none is given (core
 * builds no loom of its own). `result.loom` is then a Loom: threads, exports, rewards.
 */
export class Cantrip extends CoreCantrip<Loom> {
  constructor(init: Omit<CantripInit<Loom>, "loom"> & { loom?: Loom }) {
    super({ ...init, loom: init.loom ?? new Loom() });
  }
}
