/**
 * Spellbook's public API (`spellbook`): the spec's vocabulary, usable without YAML. A
 * deliberate list — tests/api/public-api.test.ts pins every name; an internal helper stays in
 * its module. The council is `spellbook/council` (src/spell/crucible.ts).
 */
export { DefaultCantrip as Cantrip } from "./default-cantrip.js";
export type { CastResult, CastTerminated, CastTruncated, CastFailed } from "./default-cantrip.js";
export type { CantripInit, CastOptions } from "./core/cantrip.js";
export type { CastEvents } from "./core/event-stream.js";
export type {
  ApprovalAnswer,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalSource,
  Approver,
} from "./core/approval.js";
export { Entity } from "./core/entity.js";
export { newEntityId } from "./core/ids.js";
export type { UsageTotals } from "./core/result.js";
export { createIdentity, type Identity, type IdentityInput } from "./core/identity.js";
export { composeWards, type Ward, type WardValue, type WardValues } from "./core/wards.js";
export type { CantripEvent } from "./core/events.js";
export type * from "./core/contract.js";
export {
  SpellbookError,
  ConfigError,
  SystemError,
  ModelError,
  SpellErrors,
  errorMessage,
  type ErrorCode,
  type ErrorFamily,
  type SourcePosition,
} from "./core/errors.js";

/** What the LLM is shown of the history each turn. */
export {
  wholeHistory,
  type ContextView,
  type ViewContext,
  type FoldRecord,
  type TurnMark,
} from "./core/view.js";
export {
  foldingView,
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

/** LLMs: a provider per function, the generic factory, the offline ones. */
export {
  anthropic,
  openai,
  openrouter,
  google,
  local,
  createLLM,
  ScriptedLLM,
  ReplayLLM,
  ProviderError,
  type ProviderOptions,
  type LLMSpec,
  type ProviderContext,
  type RetrySpec,
  type ScriptedResponse,
  type ProviderErrorCode,
} from "./llm/index.js";

/** The circle: gates and mediums. */
export { Circle, type CircleConfig } from "./circle/circle.js";
export type { Gate, GateCallRecord, GateContext } from "./circle/gate.js";
export type { Medium } from "./circle/medium.js";
export {
  doneGate,
  echoGate,
  readGate,
  listDirGate,
  searchGate,
  writeGate,
  fetchGate,
  mcpGates,
  browserGates,
  behaviorGate,
  callEntityGate,
  callEntityBatchGate,
  type FetchOptions,
  type McpServerConfig,
  type DeclaredGate,
  type GateBehavior,
} from "./circle/gates/index.js";
export {
  gate,
  type GateDefinition,
  type GateArgs,
  type ObjectJsonSchema,
  type StandardJsonSchemaLike,
  type StandardOutput,
} from "./circle/gates/typed.js";
export type {
  ChildLLMChoice,
  ChildLLMSource,
  Proposal,
  SpawnConfig,
  TruncatedChild,
} from "./circle/spawn/index.js";
export { conversationMedium } from "./circle/mediums/conversation.js";
export {
  codeMedium,
  createCodeMedium,
  type CodeMediumOptions,
} from "./circle/mediums/code/index.js";
export { bashMedium, createBashMedium, type BashOptions } from "./circle/mediums/bash/index.js";

/** The loom. */
export { Loom } from "./loom/core/index.js";
export { MemoryStore } from "./loom/stores/index.js";
export { JsonlStore, readLoomFile, type JsonlStoreOptions } from "./loom/stores/index.js";
export type { Turn } from "./loom/records/index.js";
export { fork, type ForkOptions } from "./loom/core/index.js";

/** Spells and other documents. */
export { loadSpell, loadSpellText, type LoadedSpell } from "./spell/index.js";
export { loadDocument, type LoadedDocument } from "./spell/index.js";
export { castSpell } from "./spell/cast-spell.js";
export { castIntent, type SpellCall } from "./spell/inputs.js";

/** Summoner flows (seed 003): routes, tapes, the receive/send cycle, DNA — the `flows` namespace. */
export * as flows from "./flows/index.js";
/**
 * The flows' namespace under its old name (the folder was `routes/`).
 * @deprecated Use `flows`; `routes` goes in the next version.
 */
export * as routes from "./flows/index.js";
export { Flow, FlowRunner, PROFILE_VERSION as FLOW_PROFILE_VERSION } from "./flows/index.js";
export { JsHandlers } from "./flows/js-handlers.js";
