/**
 * Every error code Spellbook throws, in one closed table (as eemeli/yaml's ErrorCode): what it
 * means and the exit code `spell` gives when the error ends a command. `ErrorCode` is derived
 * from the table, and every error class takes it, so a code not written here does not compile.
 * docs/design/ERRORS.md is this table as a page, and tests/core/error-codes.test.ts holds the
 * page, the table and the code together (`--update` regenerates the page).
 *
 * Exit codes (cli/io.ts EXIT; cli/load.ts exitFor): 3 for the spell family (ConfigError: the user
 * must fix a spell, a flag or a call), 4 for the system and model families (SystemError,
 * ProviderError, ModelError), 1 for the conformance runner's own codes (`spell test` reports a
 * broken case). An error raised inside a gate call (call_entity's refusals) reaches the model as
 * the gate's error and ends no command; its exit is the one it would give if it did. The
 * servers' own answers (`spell serve`, `spell view`: `{ error: { code, message } }`) end no
 * command either: they have no exit, only the HTTP status they are sent with.
 *
 * The two longest families live in files of their own: the spell family (exit 3) in
 * error-codes-spell.ts, the servers' answers in error-codes-http.ts.
 */

import { HTTP_CODES } from "./error-codes-http.js";
import { SPELL_CODES } from "./error-codes-spell.js";

/** An exit code of `spell` (cli/io.ts EXIT). */
export type ErrorExit = 1 | 3 | 4;

export interface ErrorCodeInfo {
  readonly meaning: string;
  /** One exit, or two (the meaning says which is which); none for a server's own answer. */
  readonly exit: readonly ErrorExit[];
  /** The HTTP status a server sends it with (`{ error: { code, message } }`). */
  readonly http?: number;
}

/** Something outside the spell failed, or the model broke the contract: exit 4. */
const RUN_CODES = {
  bad_proposal:
    "the model's call_entity proposal is malformed (reaches the model as the gate's error)",
  batch_too_large:
    "call_entity_batch got more proposals than max_batch_size (reaches the model as the gate's error)",
  cast_failed:
    "the cast failed with an error that is not a SpellbookError (wrapped in the failed result; spell serve's cast stream: its error event)",
  child_failed: "a child entity's cast failed",
  child_medium_not_allowed:
    "call_entity asked for a child medium the circle's child_medium_allowlist does not allow (reaches the model)",
  context_window_exceeded:
    "LLM-2: the prompt is longer than the model's context window (never retried)",
  council_empty_reply: "a council model answered without text twice",
  council_interrupted: "the council run was interrupted",
  delegation_warded_off:
    "call_entity in a circle whose max_depth is 0 (reaches the model as the gate's error)",
  duplicate_tool_call_id: "LLM-4: the model's reply holds two tool calls with one id",
  empty_response: "LLM-3: the model returned neither content nor tool calls",
  gate_unavailable:
    "call_entity named a gate a child may not have (reaches the model as the gate's error)",
  loom_db:
    "the PostgreSQL loom cannot be reached or refused a statement (after retrying a dropped connection)",
  queue_lost:
    "the queue's Redis stayed unreachable past the run's bound (spell eval --queue): the run ends",
  queue_unreachable:
    "spell worker could not reach the queue's Redis when it started (refused, no such host, or no answer in time)",
  loom_fenced:
    "a turn's (entity, sequence) is taken by another turn in the store: a late writer (a worker presumed dead) is refused, never merged",
  loom_in_use: "another summon (this or another process) holds the entity",
  loom_io: "the loom file cannot be opened",
  loom_schema:
    "the PostgreSQL loom's schema version is newer than this Spellbook knows (nothing written)",
  loom_state_unreadable: "an entity's state file is damaged or cannot be read",
  loom_state_version: "an entity's state file is newer than this Spellbook reads",
  loom_version: "the loom file's format version is newer than this Spellbook reads",
  no_calling_entity: "call_entity was called outside a circle's entity",
  provider_auth: "the provider rejected the API key (401)",
  provider_bad_request: "the provider rejected the request (400, 422)",
  provider_bad_response: "the provider answered, but not in its own wire format",
  provider_connection: "the connection failed, was reset, or timed out (no HTTP status)",
  provider_error: "the provider failed in a way no other code names",
  provider_not_found: "the provider does not know the model or path (404)",
  provider_overloaded: "the provider is overloaded (529, 503)",
  provider_permission: "the provider denied permission (403)",
  provider_server_error: "the provider had a server error (5xx)",
  provider_stream_incomplete: "a stream ended before the provider said it was complete",
  registry_auth:
    "the registry refused the credential, or needs one and none is stored (401, 403): spell login HOST",
  registry_cache:
    "the cache folder is a symbolic link or another user's: set SPELLBOOK_CACHE to a folder of your own",
  registry_digest:
    "a blob or manifest from the registry does not match its digest (or size): the content is refused",
  registry_error: "the registry answered with an error no other code names (its HTTP status said)",
  registry_not_found: "the registry has no such repository, tag or digest (404)",
  registry_not_spell: "the reference names an artifact that is not a spell (its media types)",
  registry_unreachable:
    "the registry cannot be reached: connection refused, no such host, TLS failed, or no answer in time",
  quickjs_loaded: "the code engine was configured after it had loaded",
  quickjs_unavailable: "the QuickJS WebAssembly module cannot be loaded",
  rate_limited: "the provider rate-limited the request (429)",
  sandbox_worker_failed: "a code sandbox worker cannot start",
  spell_unreadable: "the spell file exists but cannot be read",
  tool_call_without_id: "LLM-4: the model's tool call has no id",
  tool_call_without_name: "LLM-4: the model's tool call has no gate name",
  tool_choice_required_unmet:
    "LLM-5: tool_choice is required and the model made no tool call after the re-prompts",
  tool_result_in_response: "LLM-3: the model's reply holds a tool result message",
  tool_result_unmatched: "LLM-7: a tool result answers no tool call",
  triage_invalid_json: "the triage agent's reply is not a JSON object",
} as const;

/** The conformance runner's own codes: `spell test` counts a broken case, exit 1. */
const TEST_CODES = {
  acp_closed: "the ACP agent under test closed before answering a request (acp_exchange)",
  bad_case:
    "a conformance case is not a mapping of setup, action and expect, or has an unknown key",
  bad_suite: "a file given to spell test is neither a spell nor a conformance suite",
  no_cantrip: "a conformance action needs a cantrip and none was constructed or cast",
  no_cast: "a conformance expectation needs a cast and none ran",
  no_entity: "a conformance send.resummon needs an entity and none was summoned",
  no_llm: "a conformance expectation on invocations needs setup.llm",
  no_such_thread: "a conformance extract_thread names a cast that did not run",
  no_such_turn: "a conformance action names a turn the loom does not have",
  suite_not_sequence: "a conformance suite is not a YAML sequence of cases",
  unsupported_action: "a conformance case uses an action the runner does not support",
  unsupported_setup: "a conformance case's setup is not supported (or malformed)",
} as const;

/** Codes with two exits: thrown by two families, or by the loader and the conformance runner. */
const MIXED_CODES = {
  yaml_syntax: {
    exit: [1, 3],
    meaning: "the YAML does not parse: a spell (3), or a conformance suite under spell test (1)",
  },
  loom_corrupt: {
    exit: [3, 4],
    meaning:
      "the loom file holds a line that is not a JSON record (4), or the loom has a parent cycle (3)",
  },
  loom_refused: {
    exit: [3, 4],
    meaning: "the loom store refuses to open (e.g. a loom path that is a folder)",
  },
  triage_invalid: {
    exit: [3, 4],
    meaning:
      "the council's triage output breaks its schema: the model's (4) or the fixed one in the document (3)",
  },
  unknown_gate: {
    exit: [3, 4],
    meaning: "a spell names a gate no registry has (3), or call_entity does (4, reaches the model)",
  },
  unknown_llm: {
    exit: [1, 4],
    meaning:
      "a conformance setup names no declared llm (1), or call_entity does (4, reaches the model)",
  },
  unknown_medium: {
    exit: [3, 4],
    meaning:
      "a spell names a medium no registry has (3), or call_entity does (4, reaches the model)",
  },
  unsupported_expectation: {
    exit: [1, 3],
    meaning:
      "a conformance case expects something the runner does not check: spell test counts the case (1), spell validate reports the key of a spell's tests: (3)",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** The closed set of error codes. */
export type ErrorCode =
  | keyof typeof SPELL_CODES
  | keyof typeof RUN_CODES
  | keyof typeof TEST_CODES
  | keyof typeof MIXED_CODES
  | keyof typeof HTTP_CODES;

function withExit<K extends string>(
  codes: Record<K, string>,
  exit: ErrorExit,
): Record<K, ErrorCodeInfo> {
  const out = {} as Record<K, ErrorCodeInfo>;
  for (const code of Object.keys(codes) as K[]) out[code] = { meaning: codes[code], exit: [exit] };
  return out;
}

function withHttp<K extends string>(
  codes: Record<K, { http: number; meaning: string }>,
): Record<K, ErrorCodeInfo> {
  const out = {} as Record<K, ErrorCodeInfo>;
  for (const code of Object.keys(codes) as K[]) out[code] = { ...codes[code], exit: [] };
  return out;
}

/** code → { meaning, exit, http }: the one table (docs/design/ERRORS.md is generated from it). */
export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorCodeInfo>> = {
  ...withExit(SPELL_CODES, 3),
  ...withExit(RUN_CODES, 4),
  ...withExit(TEST_CODES, 1),
  ...MIXED_CODES,
  ...withHttp(HTTP_CODES),
};
