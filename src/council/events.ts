/**
 * What a council run says while it runs: each call's start, answer or failure (with its
 * timing), an empty reply asked again, and warnings (a judge that answered neither YES nor NO).
 * The CLI prints them as progress lines on stderr; the engine takes a listener (`onEvent`).
 */

/** Where in the deliberation a call is made (kept in the turn's metadata as `council`). */
export interface CallSite {
  phase: "triage" | "seat" | "red_team" | "judge" | "synthesis" | "short_circuit";
  loop?: number;
  /** The seat key (role, or role#n). */
  seat?: string;
  /** A grammar's step within a loop: position, defense, draft, critique, final_critique. */
  step?: string;
}

export type CouncilEvent =
  | { type: "call_started"; site: CallSite; llm: string }
  | { type: "call_answered"; site: CallSite; llm: string; ms: number }
  | { type: "call_failed"; site: CallSite; llm: string; ms: number; error: string }
  | { type: "call_retry"; site: CallSite; llm: string; reason: string }
  /**
   * `reply`: the model's words the warning is about, whole. A printer redacts them before it
   * shortens them (a cut first can leave half a secret that no redaction recognises).
   */
  | { type: "warning"; message: string; reply?: string };

export type CouncilEventListener = (event: CouncilEvent) => void;

/** One loop that completed before a run failed (its positions and the red team's critique). */
export interface CompletedLoop {
  readonly loopNumber: number;
  readonly councilResponses: Readonly<Record<string, string>>;
  readonly redTeamCritique: string;
}

const COMPLETED = Symbol("council.completedLoops");

/** Attaches the loops completed before `err` to it (the executor, as the error passes). */
export function attachCompletedLoops(err: unknown, loops: readonly CompletedLoop[]): void {
  if (typeof err === "object" && err !== null && !(COMPLETED in err))
    Object.defineProperty(err, COMPLETED, { value: loops, enumerable: false });
}

/** The loops a failed run completed before its error (none when it failed before loop 1 ended). */
export function completedLoopsOf(err: unknown): readonly CompletedLoop[] {
  if (typeof err !== "object" || err === null) return [];
  return ((err as Record<symbol, unknown>)[COMPLETED] as CompletedLoop[] | undefined) ?? [];
}
