/**
 * The council's runtime vocabulary (Crucible brief §2.1), in camelCase. The snake_case wire
 * forms are schemas/triage-output.schema.json, loop-record and executor-result; the triage
 * agent converts the model's JSON once (triage-output.ts), the CLI converts results back.
 */

export type ComplexityDomain = "simple" | "complicated" | "complex" | "chaotic";
export type LoopGrammar = "parallel" | "sequential" | "debate";
export type RedTeamFlavor = "logical" | "feasibility" | "ethical" | "steelman";
export type CouncilRole = "synthesizer" | "domain_expert" | "pragmatist" | "creative" | "red_team";

export interface CouncilSeat {
  readonly role: CouncilRole;
  readonly systemPrompt: string;
  /** A model id, or (in a spell) the name of one of its `models:`; null: the default model. */
  readonly modelHint: string | null;
}

/** The triage agent's configuration; the executor runs it without interpretation. */
export interface TriageOutput {
  readonly reconstructedQuery: string;
  readonly complexity: ComplexityDomain;
  readonly shortCircuitAllowed: boolean;
  /** 3-5 seats, exactly one red_team. */
  readonly council: readonly CouncilSeat[];
  readonly loopGrammar: LoopGrammar;
  /** 2-5. */
  readonly loopCount: number;
  readonly redTeamFlavor: RedTeamFlavor;
  readonly allowEarlyExit: boolean;
  readonly synthesisInstruction: string;
}

/** Positions keyed by seat (the role, or `role#n` when seats share a role), in seat order. */
export type SeatResponses = Readonly<Record<string, string>>;

/** What a council run returns (§2.1). */
export interface ExecutorResult {
  finalResponse: string;
  /** 0 when short-circuited. */
  loopsExecuted: number;
  /** True when the council stopped before loopCount, or was short-circuited. */
  earlyExit: boolean;
  /** One record per loop when observability is on; null when off. */
  reasoningTrace: LoopRecordView[] | null;
}

/** A loop of the trace (the shape of loop-record.ts's LoopRecord). */
export interface LoopRecordView {
  readonly loopNumber: number;
  readonly councilResponses: SeatResponses;
  readonly redTeamCritique: string;
  readonly deltaDetected: boolean;
}
