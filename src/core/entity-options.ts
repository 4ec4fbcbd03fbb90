/**
 * What an entity is made from and how (§1.4): the cantrip's fixed parts it is summoned from,
 * and the options of a summon — a fresh entity, a child (COMP-5), a fork (LOOM-4) or a resumed
 * one (its recorded context read once it is held).
 */
import type { Approver } from "./approval.js";
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
