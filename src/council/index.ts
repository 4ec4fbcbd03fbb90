/**
 * The public surface of the council (`spellbook/council`, brief §3.4): the engine, its
 * configuration and its result — nothing else. Triage, executor, grammars, delta strategies
 * and the prompt library are implementation details.
 */
export { Crucible, type EngineConfig } from "./engine.js";
export type { ExecutorResult } from "./types.js";
