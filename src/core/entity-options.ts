/**
 * What an entity is made from and how (§1.4): the cantrip's fixed parts it is summoned from,
 * and the options of a summon — a fresh entity, a child (COMP-5), a fork (LOOM-4) or a resumed
 * one (its recorded context read once it is held).
 */
import type { Approver } from "./approval.js";
import type { CastPlaces } from "./cast-places.js";
import type { EventListener } from "./events.js";
import type { Message } from "./contract.js";
import type { CastConfig } from "./loop-host.js";
import type { EntityLease, LoomWriter, RecordedCast } from "./loom-writer.js";
import type { RebuildTurn } from "./medium.js";
import type { ContextView, TurnMark } from "./view.js";

/** What an entity is summoned from: a cantrip's fixed parts (the Cantrip implements it). */
export interface EntitySource<L extends LoomWriter = LoomWriter> extends CastConfig<L> {
  readonly id: string;
  readonly name: string;
  readonly view: ContextView;
  initialMessages(): Message[];
  /** Reaches what the circle's presentation needs from outside, before a cast (Cantrip.prepare). */
  prepare?(): Promise<void>;
  /** A text as the entity prints it (`util.inspect`, JSON): its spell's redaction (PROD-8). */
  printed?(text: string): string;
}

export interface EntityOptions {
  /** The turn this entity hangs from: a spawning parent turn (COMP-5) or a fork point (LOOM-4). */
  parentTurnId?: string | null;
  /** Cancels the entity (Ctrl-C, a terminated parent). The reason becomes the truncation reason. */
  signal?: AbortSignal;
  /** Working context to start from instead of a fresh one (a fork). */
  history?: Message[];
  /** Where each turn of `history` begins (a fork, a resume): a folding view folds them too. */
  marks?: readonly TurnMark[];
  /** How deep this entity was spawned: 0 for one nobody spawned (COMP-6). */
  depth?: number;
  /** Answers the circle's approval questions (issue 25); absent: every ask is denied. */
  onApproval?: Approver | undefined;
  /** A fork (LOOM-4): the turn it continues from and how its state was rebuilt, for the loom. */
  fork?: { fromTurnId: string; strategy: string };
  /** Recorded turns whose medium state the entity rebuilds before its first cast (a fork's rebuild). */
  rebuild?: readonly RebuildTurn[];
  /** The id of a recorded entity this one continues (a resumed summon); default a new id. */
  id?: string;
  /** The sequence of the entity's last recorded turn (a resumed summon); default 0. */
  sequence?: number;
  /** How the entity is held while it lives (a loom that keeps entities); taken by `ready()`. */
  keeper?: (entityId: string) => Promise<EntityLease>;
  /**
   * A resumed entity's recorded context (history, marks, parent turn, sequence, rebuild), read
   * by `ready()` once the entity is held: never from a thread another summon may still extend.
   */
  resume?: () => EntityOptions;
  /** A resumed entity's last cast as recorded: `send(intent, { resume: true })` continues it. */
  recorded?: RecordedCast;
}

export interface CastOptions extends Omit<
  EntityOptions,
  "history" | "id" | "sequence" | "keeper" | "recorded"
> {
  onEvent?: EventListener;
  /**
   * Continue the cast of this entity from its last recorded turn in the cantrip's loom (a cast
   * interrupted by Ctrl-C, a crash, a killed worker). Its turns go back into the context, the
   * code medium's variables come back by replay (as `summon({ entity })`), the next turn takes
   * the next sequence, nothing recorded is recorded again and `intent` is not appended again;
   * the wards count the cast's recorded turns, tokens and cost. An entity with no turn yet
   * starts fresh under this id with `intent` (so a job can always pass a pre-assigned id:
   * `newEntityId()`); a cast that already ended (`done`, a text reply, a ward) gives back its
   * recorded result with no LLM call. The entity is held while the cast runs: a second cast of
   * the same entity waits, then fails with `loom_in_use`. Needs a loom that keeps entities.
   */
  resumeEntity?: string;
  /**
   * Which cast of a series this is (0 the first: an eval's case × repeat, `spell run --repeat`'s
   * repeat): a scripted model starts at the seat-th cast's part of its script, counted from where
   * the cantrip stands (core/cast-places.ts), so the cast gets the same replies in any process.
   * Default: the cast starts where the cantrip stands. Ignored by `summon`.
   */
  seat?: number;
  /**
   * The cast runs inside another's (a child inside its parent's): its scripted models' places are
   * that cast's (`places`; undefined: the models' own, a summoned entity's send). Passed by
   * call_entity, since the code medium's gate calls lose the async context they began in.
   */
  within?: { places: CastPlaces | undefined };
}

export interface SummonOptions extends CastOptions {
  /** Working context to start from instead of a fresh one (a fork). */
  history?: Message[];
  /**
   * An entity recorded in the loom to continue (ENTITY-5 across processes): its earlier turns
   * come back into the context and, in the code medium, its variables by rebuild (LOOM-13).
   */
  entity?: string;
}
