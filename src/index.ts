/** Spellbook's public API: the spec's vocabulary, usable without YAML. */
export { Cantrip } from "./default-cantrip.js";
export type { CantripInit, CastOptions } from "./core/cantrip.js";
export { Entity } from "./core/entity.js";
export type {
  CastResult,
  CastTerminated,
  CastTruncated,
  CastFailed,
  UsageTotals,
} from "./core/result.js";
export {
  wholeHistory,
  type ContextView,
  type ViewContext,
  type FoldRecord,
  type TurnMark,
} from "./core/view.js";
export { fork, forkPath, rebuildMessages, type ForkOptions } from "./loom/fork.js";
export {
  foldingView,
  foldMarker,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_FOLD_THRESHOLD,
  type FoldingOptions,
} from "./core/folding.js";
export {
  templateSummary,
  llmSummary,
  type FoldInput,
  type FoldSummarizer,
} from "./core/fold-summary.js";
export { createIdentity, type Identity, type IdentityInput } from "./core/identity.js";
export {
  composeWards,
  wardKinds,
  type Ward,
  type WardValue,
  type WardValues,
} from "./core/wards.js";
export * from "./core/errors.js";
export type { CantripEvent } from "./core/events.js";
export { Circle, type CircleConfig } from "./circle/circle.js";
export type { Gate, GateCallRecord, GateContext } from "./circle/gate.js";
export * from "./circle/gates/index.js";
export { conversationMedium } from "./circle/mediums/conversation.js";
export {
  codeMedium,
  createCodeMedium,
  configureCodeEngine,
  loadCodeEngine,
  JS_TOOL,
  type CodeMediumOptions,
  type CodeEngineOptions,
} from "./circle/mediums/code/index.js";
export {
  CHILD_IDENTITY,
  parseProposal,
  type ChildLLMChoice,
  type ChildLLMSource,
  type GateLookup,
  type Proposal,
  type SpawnConfig,
  type TruncatedChild,
} from "./circle/spawn/index.js";
export type { Medium } from "./circle/medium.js";
export type * from "./core/contract.js";
export { ScriptedLLM } from "./llm/providers/scripted.js";
export { Loom } from "./loom/loom.js";
export { MemoryStore } from "./loom/store.js";
export { JsonlStore, readLoomFile, type JsonlStoreOptions } from "./loom/storage-jsonl.js";
export type { Turn } from "./loom/turn.js";
export { loadSpell, loadSpellText, type LoadedSpell } from "./spell/index.js";
export { loadCircleState } from "./spell/resolve-state.js";
/** Summoner flows (seed 003): routes, tapes, the receive/send cycle, DNA. */
export * as routes from "./routes/index.js";
export { Flow, FlowRunner, PROFILE_VERSION as FLOW_PROFILE_VERSION } from "./routes/index.js";
export { JsHandlers } from "./routes/js-handlers.js";
export { loadDocument, type LoadedDocument } from "./spell/index.js";
