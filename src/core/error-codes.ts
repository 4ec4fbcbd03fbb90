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
 */

import { HTTP_CODES } from "./error-codes-http.js";

/** An exit code of `spell` (cli/io.ts EXIT). */
export type ErrorExit = 1 | 3 | 4;

export interface ErrorCodeInfo {
  readonly meaning: string;
  /** One exit, or two (the meaning says which is which); none for a server's own answer. */
  readonly exit: readonly ErrorExit[];
  /** The HTTP status a server sends it with (`{ error: { code, message } }`). */
  readonly http?: number;
}

/** The user's spell, flag or call is wrong (ConfigError): exit 3. */
const SPELL_CODES = {
  api_key_missing: "the provider needs an API key and none is set in the environment or the spell",
  bad_action: "a flow names an action its handlers do not know",
  bad_approval_rule:
    "an approve: item names both or neither of gate/command, an empty pattern, or unless with command",
  bad_approve_flag: "--approve is not gate=PATTERN",
  bad_base_url: "llm.base_url is not a URL",
  bad_behavior: "a gate's behavior block is incomplete (behavior.throw without a message)",
  bad_dependency:
    "a gate's dependencies are wrong (a root that cannot be used, call_entity offering what it cannot, a bad fetch/mcp/browser setting)",
  bad_entity_id: "an entity id holds characters other than letters, digits, _ and -",
  bad_input:
    "a spell's input is missing or does not match its inputs: schema, a malformed --input, or an unreadable --inputs file (HTTP 400, an MCP tool error)",
  eval_assertion: "an eval's assertion has an unknown key, a bad regex or a bad JSON Schema",
  eval_case: "an eval's case row is malformed, or two cases share a name",
  eval_cases: "an eval's cases file is unreadable or not valid JSONL, CSV or YAML",
  eval_compare: "spell eval --compare names a folder with no readable summary.json",
  eval_not_recorded:
    "a cast replayed by spell eval --replay has no recorded replies of its own (an errored case)",
  eval_spell: "an entry of an eval's spells: is not a cantrip or does not load",
  eval_var: "an eval's intent names a {{var}} the case does not give",
  bad_identity: "an identity has an unknown key or two temperatures that disagree",
  bad_key: "the DNA signing key is not a usable Ed25519 private key",
  bad_llm: "an llm: value is not provider/model or { provider, model, ... }, or has an unknown key",
  bad_priority: "a flow's priority tuple holds something other than finite numbers",
  missing_intent: "no intent from any source (the spell, the command line, the call)",
  not_compiled: "castSpell was given a spell loaded with validateOnly",
  bad_reward: "a reward is not a finite number",
  bad_state_name: "a circle.state name is not a JavaScript variable name",
  bad_ward_value: "a ward's value has the wrong type or sign",
  bash_key_needs_bash_medium: "a bash-only circle key is set on a circle of another medium",
  cast_truncated: "a flow's cast: handler ran a cast that a ward truncated",
  child_spell_invalid: "a child spell named by call_entity is invalid or is not a cantrip",
  child_spell_missing: "a child spell named by call_entity does not exist",
  conflicting_medium: "a circle declares more than one medium",
  council_model_hint: "a council names a model hint no llm answers to",
  dna_only: "a spell loaded for its DNA only was asked to cast",
  duplicate_alias: "a key is given under both its old and its new name",
  duplicate_gate: "a circle registers a gate twice, or call_entity offers one twice",
  duplicate_kind: "a document kind is registered twice",
  entity_disposed: "a released entity was asked to cast",
  env_missing: "a ${env:NAME} names a variable that is not set and has no default",
  env_syntax: "a ${env:...} reference is malformed",
  flow_cast: "a flow's cast: names a spell that cannot be loaded or is not a cantrip",
  flow_handler: "a flow entry names no handler or more than one",
  flow_js: "a flow's JavaScript handler does not compile",
  flow_tests: "a flow-tests file names a document that is not a flow",
  fork_replay_diverged: "a fork of a code-medium entity replays a turn differently from the record",
  gate_root_missing: "a file gate's root folder does not exist",
  gate_root_unsupported: "file gates need Linux's /proc/self/fd to stay inside their root",
  identity_immutable: "code tried to change an identity after it was made",
  intent_required: "a cast was asked for with no intent",
  loom_append_only: "LOOM-3: a turn was written twice or deleted",
  loom_unknown_turn: "a turn id is not in the loom",
  missing_circle: "a cantrip is built without a circle",
  missing_done_gate: "a circle has no done gate (or require_done without one)",
  missing_identity: "a cantrip is built without an identity",
  missing_llm: "a cantrip or a query is built without an llm",
  missing_truncation_ward: "a cantrip has no truncation ward (max_turns or timeout_ms)",
  model_missing: "the provider needs a model name and none is given",
  not_a_cantrip: "a cantrip was asked for and the document is of another kind",
  not_a_flow: "spell flow was given a document that is not a flow",
  replay_exhausted: "the replay provider has no recorded reply left for this query",
  replay_loom_missing: "the replay provider is given no recorded loom",
  replay_loom_unreadable: "the replay provider's recorded loom cannot be read",
  replay_thread_missing: "the recorded loom has no thread to replay",
  replay_unsupported: "the medium keeps no state to rebuild by re-running turns",
  resume_other_spell: "spell run --resume names an entity cast from another spell file",
  resume_unsupported: "the loom does not keep entities to resume",
  retry_status_not_allowed: "llm.retry names a status that may not be retried (only 429 and 5xx)",
  root_missing: "circle.root is not a folder",
  root_not_writable: "the write gate has no writable root",
  route_syntax: "a flow's route pattern does not parse",
  sandbox_unavailable: "the bash medium cannot run its OS sandbox (bubblewrap) here",
  schema: "the document breaks its kind's JSON Schema",
  script_exhausted: "the scripted llm has no response left for a query",
  queue_url: "--queue is not a redis://host:port URL",
  spell_invalid: "several errors of one load, reported together (SpellErrors)",
  spell_not_found: "the spell file does not exist",
  spell_not_mapping: "the spell is not a YAML mapping",
  spell_too_large: "the spell file is larger than the loader reads",
  state_file_invalid: "a circle.state file is not valid JSON or YAML",
  state_file_unreadable: "a circle.state file cannot be read",
  state_needs_code_medium: "circle.state is set on a circle whose medium is not code",
  tape_shape: "a flow tape has the wrong shape",
  unknown_dependency: "a gate is given a dependency it does not take",
  unknown_entity: "the loom has no entity with this id",
  unknown_kind: "kind: names no registered document kind",
  unknown_provider: "llm.provider names no registered provider",
  unknown_ward: "a ward name no registry has",
  unreadable: "spell dna cannot read the file it is given",
  validate_only: "a spell loaded for validation only was asked to cast",
  worker_rate: "spell worker --rate is not PROVIDER=N/s (or /m, /h)",
  yaml_alias_bomb: "the YAML expands too many aliases (a possible alias bomb)",
  yaml_duplicate_key: "a YAML mapping has a key twice",
  yaml_indentation: "the YAML is indented with tabs or inconsistently",
} as const;

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
  unsupported_expectation: "a conformance case expects something the runner does not check",
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
