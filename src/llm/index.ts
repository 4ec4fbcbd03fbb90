/**
 * What leaves src/llm: the contract, the provider registry, the wrappers every real provider
 * gets (retry, LLM-5), coded provider errors, the offline providers and the loopback server.
 * The SDK adapters stay behind `createLLM` so that importing this never loads an SDK.
 */
export type * from "../core/contract.js";
export { addUsage, emptyUsage } from "../core/contract.js";
export { assertToolPairing, validateResponse } from "../core/validate-response.js";
export {
  createLLM,
  parseLLMShorthand,
  providerRegistry,
  type LLMSpec,
  type ProviderContext,
  type ProviderEntry,
} from "./registry.js";
export {
  DEFAULT_RETRY,
  RetryingLLM,
  backoffDelay,
  isRetryable,
  retryPolicy,
  type RetryOptions,
  type RetryPolicy,
  type RetrySpec,
  type Sleep,
} from "./retry.js";
export { RequiredToolChoiceLLM, TOOL_REQUIRED_REMINDER } from "./require-tool.js";
export {
  ProviderError,
  classifyHttpError,
  isContextOverflow,
  parseRetryAfter,
  type ProviderErrorCode,
} from "./errors.js";
export {
  anthropic,
  google,
  local,
  openai,
  openrouter,
  type ProviderOptions,
} from "./providers/factories.js";
export { ScriptedLLM, type ScriptedResponse } from "./providers/scripted.js";
export { ReplayLLM, readRecordedThread, repliesOfThread, REPLAY_KEY } from "./providers/replay.js";
export { KEY_ENV_VARS } from "./providers/profiles.js";
export {
  startLoopbackProvider,
  type LoopbackReply,
  type LoopbackRequest,
  type LoopbackServer,
} from "./loopback/server.js";
