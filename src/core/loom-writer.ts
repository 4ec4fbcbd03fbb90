/**
 * Where the loop records (chapter 6), owned by the ground floor: the loom module implements it
 * and builds the records; core never imports the loom.
 */
import type { Message, Usage } from "./contract.js";
import type { GateCallRecord, RebuildTurn } from "./medium.js";
import type { TurnOutcome } from "./outcome.js";
import type { FoldRecord, TurnMark } from "./view.js";

/** A turn's place in the tree. */
export interface TurnHead {
  id: string;
  /** The turn before it in this thread; null at a root (LOOM-2). */
  parentId: string | null;
  cantripId: string;
  entityId: string;
  sequence: number;
}

/** What a turn holds: the medium's side of it. */
export interface TurnContent {
  utterance: string;
  observation: string;
  gateCalls: GateCallRecord[];
  isError?: boolean;
}

/** What a turn cost, and anything a provider reported besides (LLM-6). */
export interface TurnCost {
  usage: Usage;
  durationMs: number;
  extra: Readonly<Record<string, unknown>> | undefined;
  /** USD; undefined when the model's price is unknown (never a guessed 0). */
  costUsd?: number | undefined;
  /** Who answered: the provider and model as configured (the loom's `llm`). */
  llm?: LLMId | undefined;
}

/** The provider and model of a turn; `model` null when the spell named none. */
export interface LLMId {
  provider: string;
  model: string | null;
}

/** A recorded turn as a reading loom gives it back (the loom's record, snake_case). */
export interface ThreadTurn {
  id: string;
  parent_id: string | null;
  sequence: number;
  entity_id: string;
  utterance: string;
  observation: string;
  gate_calls: GateCallRecord[];
  is_error?: boolean;
}

export interface LoomWriter extends EntityKeeper {
  /** The root context of a cantrip, once per cantrip (IDENTITY-4). */
  recordIdentity(
    cantripId: string,
    identity: Record<string, unknown>,
    tools: string[],
    medium: string,
  ): void;
  /**
   * One turn; on the store before the next turn begins (LOOM-1). The head and cost are read
   * during the call, not kept: the loop refills the same objects for the next turn.
   */
  recordTurn(head: TurnHead, content: TurnContent, cost: TurnCost, outcome: TurnOutcome): void;
  /**
   * An asynchronous store's answer for what was recorded so far: the loop awaits it once per
   * turn, so a refused or failed write ends the cast before the next query. Undefined when
   * the records are already kept (a synchronous store).
   */
  stored?(entityId?: string): Promise<void> | undefined;
  /** A fold of the view sent to the LLM (§6.8): which turns, and the summary that replaced them. */
  recordFold?(cantripId: string, fold: FoldRecord): void;
  /** A recorded turn, for a loom that can read back what it recorded. */
  get?(turnId: string): ThreadTurn | undefined;
}

/**
 * An entity as a loom gives it back to be continued (ENTITY-5 across processes): its working
 * context after the cantrip's head, the turns whose medium state a rebuild restores (the code
 * medium's), and where its thread ends.
 */
export interface ResumePoint {
  messages: Message[];
  /** Where each restored turn begins in `messages` (a folding view folds them too). */
  marks: TurnMark[];
  rebuild: RebuildTurn[];
  /** The entity's last recorded turn: the next turn hangs from it. */
  lastTurnId: string;
  /** The last turn's sequence: the next turn continues the count. */
  sequence: number;
  /** The entity's last cast as recorded: what `cast(intent, { resumeEntity })` continues. */
  cast: RecordedCast;
}

/**
 * The last cast of an entity, read back from its turns (the one whose first turn carries the
 * intent): how far it got and, when it ended, how. A cast cut off by an interruption (Ctrl-C, a
 * stopped worker: truncation reasons "interrupted", "aborted", "parent_terminated") has not
 * ended; one that failed or whose process died has no ending turn at all.
 */
export interface RecordedCast {
  intent: string | null;
  turns: number;
  /** Turns the LLM answered (a turn cut off before it answered is none): replies a script gave. */
  answered: number;
  usage: Usage;
  /** USD; undefined when a turn's price was unknown. */
  costUsd: number | undefined;
  /** Gate calls of the cast by gate name (a truncation's summary names them). */
  gates: Record<string, number>;
  lastUtterance: string;
  /** How the cast ended (`done`/`text` with its recorded result, or a ward); null: not ended. */
  end: { terminated: boolean; reason: string; result: unknown } | null;
}

/** What a summoned entity tells a loom that keeps entities (EntityKeeper), and its hold on it. */
export interface EntityLease {
  /** After each send: the entity's last turn, for the loom's index of entities. */
  update(lastTurnId: string | null): Promise<void>;
  /** Lets another summon (this process or another) take the entity. */
  release(): void;
}

/** Who an entity is, for the loom's index of entities. */
export interface EntityInfo {
  cantripName: string;
  medium: string;
  /** The spell file the cantrip was loaded from, when it was. */
  source: string | undefined;
  /** True when the summon named the entity (`summon({ entity })`): it must exist. */
  resumed: boolean;
}

/**
 * A loom that keeps entities across processes (a file loom). Both methods are optional parts
 * of a LoomWriter: core asks for them only when an entity is summoned.
 */
export interface EntityKeeper {
  /** The recorded context of an entity to continue; null when the loom has no turn of it. */
  resumeEntity?(entityId: string, codeTool: string | null): ResumePoint | null;
  /**
   * Registers a summoned entity and holds it against other summons of the same entity (one
   * writer per thread); fails when the entity is unknown (`resumed`) or held elsewhere.
   */
  holdEntity?(entityId: string, info: EntityInfo): Promise<EntityLease>;
}
