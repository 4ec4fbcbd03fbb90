/** What the terminal UI shows (issue 42), as plain data: SessionModel (model.ts) builds it. */

export interface CallView {
  gate: string;
  /** JSON arguments, redacted. */
  args: string;
  /** Absent while the call runs. */
  result?: string;
  isError?: boolean;
  /** When the call began (Date.now()), for the running call's elapsed time. */
  startedAt: number;
  durationMs?: number;
}

export interface TurnView {
  /** Unique in the session: the block's key and its selection. */
  key: number;
  entityId: string;
  sequence: number;
  /** 0 for the summoned entity, 1 for a child it called, … */
  depth: number;
  startedAt: number;
  text: string;
  calls: CallView[];
  /**
   * The code (or bash command) the turn's reply asked to run, from its message_complete: shown
   * while it runs; the loom's record replaces it once the turn ended.
   */
  code?: string;
  children: TurnView[];
  /** The loom's id of the turn, once it ended. */
  turnId?: string;
  /** Absent while the turn runs. */
  end?: {
    durationMs: number;
    tokensIn: number;
    tokensOut: number;
    outcome: "continue" | "terminated" | "truncated";
    error?: string;
  };
}

export type Entry =
  | { kind: "intent"; text: string }
  | { kind: "turn"; turn: TurnView }
  | { kind: "result"; text: string; summary: string }
  | { kind: "notice"; text: string; error?: boolean };

/** An approval question, as the dialog shows it. */
export interface ApprovalView {
  gate: string;
  rule: string;
  depth: number;
  /** path, url, command: whole, escaped, redacted. */
  deciding: [string, string][];
  /** Every argument, redacted and escaped. */
  args: string;
  full: boolean;
}

/** Ward limits of one cast, for "near their limit" in the status line. */
export interface Limits {
  maxTurns?: number | undefined;
  maxTokens?: number | undefined;
  maxCostUsd?: number | undefined;
}

export interface StatusInfo {
  spell: string;
  model: string;
  entityId: string;
  loom: string;
  limits: Limits;
  /** The entity's last turn before this session (a resumed entity's). */
  turn?: number;
}

/** A turn as the loom recorded it, redacted: its utterance (code) and its observation. */
export type Recorded = (turnId: string) => { utterance: string; observation: string } | undefined;
