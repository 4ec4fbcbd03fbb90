/** What a cast's loop needs of its entity (core/loop.ts); the Entity implements it. */
import type { LLM, LLMResponse, Message, ToolChoice, Usage } from "./contract.js";
import type { EventBus } from "./events.js";
import type { TurnContent, TurnCost } from "./loom-writer.js";
import type { CircleLike, GateCallRecord, MediumStep, Presentation } from "./medium.js";
import type { TurnOutcome } from "./outcome.js";
import type { UsageTotals } from "./result.js";
import type { CastStop } from "./cast-signal.js";

/** What a cantrip fixes for every cast of it: read once per cast, never changed by one. */
export interface CastConfig<L> {
  readonly llm: LLM;
  readonly circle: CircleLike;
  readonly loom: L;
  /** Computed once: the circle's presentation does not change during a cast (§4.6). */
  readonly presentation: Presentation;
  readonly toolChoice: ToolChoice;
  readonly extra: Readonly<Record<string, unknown>>;
}

export interface LoopHost<L> {
  readonly id: string;
  readonly config: CastConfig<L>;
  /** The entity's working context: every message so far, appended to by each turn. */
  readonly history: Message[];
  readonly bus: EventBus;
  readonly cumulativeUsage: UsageTotals;
  /** What the LLM is sent: the history as the view step shapes it (folding plugs in here). */
  view(): readonly Message[] | Promise<readonly Message[]>;
  /**
   * The medium's side of a turn, under the cast's `stop` (its signal, and whether it stopped);
   * `onGateStart` is told as each gate call begins, `onGateUnrecorded` of each call answered
   * without a record (past the turn's gate budget).
   */
  step(
    response: LLMResponse,
    turnId: string,
    stop: CastStop,
    onGateStart?: (gate: string, args: string) => void,
    onGateUnrecorded?: (record: GateCallRecord) => void,
  ): MediumStep | Promise<MediumStep>;
  /** Records a turn in the loom; returns its sequence number. */
  record(turnId: string, content: TurnContent, cost: TurnCost, outcome: TurnOutcome): number;
  /** Resolves once the loom keeps what was recorded (an async store); undefined when it does. */
  stored(): Promise<void> | undefined;
  addUsage(u: Usage): void;
}
