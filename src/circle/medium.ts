import type { LLMResponse, Message, ToolChoice, ToolDefinition } from "../llm/contract.js";
import type { Circle } from "./circle.js";
import type { GateCallRecord } from "./gate.js";

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
}

export interface TurnScope {
  readonly entityId: string;
  readonly turnId: string;
  readonly signal: AbortSignal;
  /** True when only `done` may terminate (require_done_tool). */
  readonly requireDone: boolean;
}

/** A medium's per-entity state (a sandbox, a shell); state persists across turns (MEDIUM-3). */
export interface MediumSession {
  execute(response: LLMResponse, scope: TurnScope): Promise<MediumStep>;
  dispose(): void;
}

/** The interior of a circle (MEDIUM-2): presentation, execution, observation, isolation. */
export interface Medium {
  readonly name: string;
  present(circle: Circle): Presentation;
  open(circle: Circle, services: Readonly<Record<string, unknown>>): MediumSession;
}
