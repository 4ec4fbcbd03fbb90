/**
 * Approvals (issue 25): a person in the loop. The circle asks before a gate it names runs; the
 * question goes to whoever runs the cast (a terminal, an editor, an HTTP client, code) through
 * one async callback. The vocabulary lives here so the loop and every medium share it.
 */

/** Who answered a question, as the loom records it. */
export type ApprovalSource =
  "terminal" | "editor" | "http" | "api" | "flag" | "record" | "none" | "timeout" | "cancel";

/** What the circle asks: a gate (or a bash command) and its arguments, before anything runs. */
export interface ApprovalRequest {
  /** Unique per question: an HTTP client answers it by this id. */
  readonly id: string;
  /** The gate's name; `bash` for a bash command that matched a `command:` rule. */
  readonly gate: string;
  /** The call's JSON arguments as the gate would receive them (unredacted: redact to show them). */
  readonly arguments: string;
  /** The rule that asked (`gate: write`, `command: "git push*"`), for the prompt. */
  readonly rule: string;
  readonly entityId: string;
  readonly turnId: string;
  /** How deep the asking entity was spawned: a child's question reaches its parent's approver. */
  readonly depth: number;
  /** Aborted when the cast is cancelled or the question timed out: stop asking. */
  readonly signal: AbortSignal;
}

/**
 * An answer: `true`/`false`, or an object saying who answered. `always` allows this gate for
 * the rest of the cast (the approver remembers it; the circle records each call anyway).
 */
export type ApprovalAnswer =
  boolean | { allow: boolean; by?: ApprovalSource; reason?: string; always?: boolean };

/** Asked before a gate the circle's `approve:` names runs. Anything but an answer denies. */
export type Approver = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** One question and its answer, as the turn records it (metadata.approvals). */
export interface ApprovalRecord {
  id: string;
  gate: string;
  arguments: string;
  rule: string;
  allowed: boolean;
  by: ApprovalSource;
  /** Why a call was denied ("denied by the user", "no approver", "timed out", …). */
  reason?: string;
  duration_ms: number;
}

export const NO_APPROVER =
  "no approver: nobody can answer here (run on a terminal, or pass --yes / --approve gate=NAME)";

/** The approval records of recorded turns (their metadata.approvals), in order. */
export function recordedApprovals(
  turns: readonly { metadata: Readonly<Record<string, unknown>> }[],
): ApprovalRecord[] {
  return turns.flatMap((t) => {
    const list = t.metadata["approvals"];
    return Array.isArray(list) ? (list as ApprovalRecord[]) : [];
  });
}

/**
 * A replay or a fork answers from the record: a call asked and answered before (same gate, same
 * arguments) gets the recorded answer and nobody is asked again; any other call goes to
 * `fallback`, or is denied when there is none.
 */
export function recordedApprover(
  records: readonly ApprovalRecord[],
  fallback?: Approver,
): Approver {
  const answers = new Map<string, boolean>();
  for (const r of records)
    if (r.by !== "timeout" && r.by !== "cancel" && r.by !== "none")
      answers.set(`${r.gate}\n${r.arguments}`, r.allowed);
  return (request) => {
    const recorded = answers.get(`${request.gate}\n${request.arguments}`);
    if (recorded !== undefined)
      return recorded
        ? { allow: true, by: "record" }
        : { allow: false, by: "record", reason: "denied when it was recorded" };
    if (fallback) return fallback(request);
    return { allow: false, by: "none", reason: NO_APPROVER };
  };
}
