import type { GateContext } from "../../src/circle/gate.js";

/** A gate context for gates that never look at the calling entity (file gates). */
export const fileGateContext: GateContext = {
  entityId: "e",
  turnId: "t",
  signal: new AbortController().signal,
  entity: undefined as unknown as GateContext["entity"],
  depth: 0,
};
