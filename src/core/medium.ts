/**
 * What the loop needs of a circle and its medium (chapter 4), owned by the ground floor: the
 * circle module implements these; core never imports it.
 */
import type { LLMResponse, Message, ToolChoice, ToolDefinition } from "./contract.js";
import type { WardValues } from "./wards.js";
import type { ApprovalRecord, Approver } from "./approval.js";
import type { CastStopState } from "./cast-signal.js";

/** The spec's canonical gate result shape (a wire format: snake_case). */
export interface GateCallRecord {
  gate_name: string;
  /** JSON-encoded arguments. */
  arguments: string;
  result: string;
  is_error: boolean;
  /** Loom format 3: when the call began (ISO 8601) and how long it ran; absent in older looms. */
  started_at?: string;
  duration_ms?: number;
}

/** How the circle presents itself to the LLM (CIRCLE-11, §4.6). Fixed for a cast. */
export interface Presentation {
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  /** Capability text placed between the identity and the intent, when the medium has one. */
  capability?: string;
}

/** What the medium decided the utterance means. */
export type MediumOutcome =
  { kind: "continue" } | { kind: "done"; result: unknown } | { kind: "text"; content: string };

/** One turn's execution: the messages it adds to the working context and the observation. */
export interface MediumStep {
  utterance: string;
  /** One composite observation per turn (CIRCLE-7): the records plus medium output. */
  observation: string;
  gateCalls: GateCallRecord[];
  /** Appended to the working context: the utterance, then the observation. */
  messages: Message[];
  outcome: MediumOutcome;
  /** The turn's observation is an error (a failed gate, code that threw). */
  isError?: boolean;
  /** When `isError`: the turn's first error as its medium tells it (events show its first line). */
  error?: string;
  /** Every approval question of the turn and its answer (issue 25); absent when none was asked. */
  approvals?: ApprovalRecord[];
}

export interface TurnScope {
  readonly entityId: string;
  readonly turnId: string;
  readonly signal: AbortSignal;
  /**
   * Whether the cast was stopped, and why, as a plain field: what the medium checks before each
   * call (reading `signal.aborted` there cost V8 its optimized code at every cast, cast-signal.ts).
   * Absent: the medium reads `signal`.
   */
  readonly stop?: CastStopState | undefined;
  /** True when only `done` may terminate (require_done_tool). */
  readonly requireDone: boolean;
  /** Told as each gate call begins (its name and JSON arguments): the loop's `tool_call` event. */
  readonly onGateStart?: ((gate: string, args: string) => void) | undefined;
  /**
   * Told of a call answered without a record (refused past the turn's gate budget, after its
   * first refusal): the loop's `tool_result` event for it, since the turn's records lack it.
   */
  readonly onGateUnrecorded?: ((record: GateCallRecord) => void) | undefined;
  /** Who answers the circle's approval questions (issue 25). */
  readonly approver?: Approver | undefined;
}

/** A recorded turn a medium runs again to rebuild its state (a fork, a resume; LOOM-4, LOOM-13). */
export interface RebuildTurn {
  id: string;
  sequence: number;
  /** What the entity wrote (the code medium: its code). */
  utterance: string;
  /** The gate calls as recorded: their results are handed back, the gates never run. */
  gateCalls: readonly GateCallRecord[];
  /** The observation recorded: a rebuild that renders another one has diverged. */
  observation: string;
}

/** A medium's per-entity state (a sandbox, a shell); state persists across turns (MEDIUM-3). */
export interface MediumSession {
  /** A turn whose gates all answer synchronously may be answered synchronously. */
  execute(response: LLMResponse, scope: TurnScope): MediumStep | Promise<MediumStep>;
  /**
   * Rebuilds the state recorded turns left behind, without running a gate (LOOM-13); throws an
   * error naming the first turn that replays differently. Absent: the medium has no state.
   */
  rebuild?(turns: readonly RebuildTurn[], signal: AbortSignal): Promise<void>;
  dispose(): void;
}

/** Who a circle's session serves: the entity and how deep it was spawned (0: nobody spawned it). */
export interface EntityContext<E = unknown> {
  readonly entity: E;
  readonly depth: number;
}

/** The environment as the loop sees it: wards, a presentation, and sessions per entity. */
export interface CircleLike {
  readonly wards: WardValues;
  readonly requireDone: boolean;
  readonly mediumName: string;
  present(): Presentation;
  /**
   * Absent for a circle whose presentation is known from the spell alone. Present when some of
   * it lives outside (an MCP server's tools): called before a cast is presented, resolves true
   * when `present()` now says something else. Never rejects.
   */
  readonly prepare?: (() => Promise<boolean>) | undefined;
  open(context: EntityContext): MediumSession;
}
