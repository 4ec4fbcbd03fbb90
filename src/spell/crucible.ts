/**
 * The public surface of the council (`spellbook/council`, brief §3.4): the engine, its
 * configuration and its result — nothing else. Triage, executor, grammars, delta strategies
 * and the prompt library are implementation details. The engine is src/council's, given the
 * TriageOutput rules of schemas/triage-output.schema.json (its compiled validator): the rules
 * live in the schema only, so the runtime and the schema cannot disagree.
 */
import { CouncilEngine, type EngineConfig } from "../council/engine.js";
import { triageCheck } from "./triage-rules.js";

export type { EngineConfig } from "../council/engine.js";
export type { ExecutorResult } from "../council/types.js";

export class Crucible extends CouncilEngine {
  constructor(config: EngineConfig = {}) {
    super(config, triageCheck);
  }
}
