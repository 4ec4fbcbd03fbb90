/**
 * The bytes one turn's gate calls may record (issue 20): arguments and results, every medium.
 * Past the budget a call is an error the entity sees; the first refused call is recorded (its
 * arguments cut), later ones are refused without a record, so a loop that catches the error
 * and calls again cannot grow the loom either. The budget is kept by `Circle.callGate`, the one
 * way every medium calls a gate; a medium that records a call itself (bad arguments) settles it
 * here too.
 */
import { cutQuote } from "../core/cut-quote.js";
import type { GateCallRecord, GateContext, GateOutcome, TurnBudget } from "./gate.js";
import { keepShape } from "../core/kept-shapes.js";

/** 16 MiB: `max_gate_record_kb` changes it. */
export const DEFAULT_MAX_GATE_RECORD_KB = 16 * 1024;

/** What a refused call's record keeps of its arguments. */
const KEPT_ARGUMENTS = 200;

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

const REFUSED = "gate call refused: this turn's gate calls would record ";

const RAN = "this call ran, but its result is not kept";
const NOT_RUN = "this call did not run";

/**
 * What a call after a turn's recorded refusal was answered, or undefined when the record is no
 * refusal: those calls were refused without a record, so a replay answers them so (LOOM-13).
 */
export function laterRefusal(record: GateCallRecord): string | undefined {
  if (!record.is_error || !record.result.startsWith(REFUSED)) return undefined;
  return record.result.replace(RAN, NOT_RUN);
}

/** One turn's budget: made by the medium turn protocol, told of every call of the turn. */
export class GateBudget implements TurnBudget {
  private used = 0;
  private refusals = 0;
  /** What the turn would have recorded with the first refused call: every refusal names it. */
  private over = 0;

  constructor(readonly limit: number) {}

  /** Bytes recorded so far in this turn. */
  get recorded(): number {
    return this.used;
  }

  /**
   * Before a call runs: its refusal when the turn is past the budget already (or its arguments
   * alone would take it there), else undefined.
   */
  before(name: string, encoded: string): GateOutcome | undefined {
    const size = this.refusals === 0 ? this.used + bytes(encoded) : this.over;
    if (size <= this.limit) return undefined;
    return this.refuse(name, encoded, size, NOT_RUN);
  }

  /** After a call: the outcome as the turn keeps it — itself when it fits, else a refusal. */
  settle(outcome: GateOutcome): GateOutcome {
    const { record } = outcome;
    const size = this.used + bytes(record.arguments) + bytes(record.result);
    if (this.refusals === 0 && size <= this.limit) {
      this.used = size;
      return outcome;
    }
    return this.refuse(record.gate_name, record.arguments, size, RAN);
  }

  private refuse(name: string, encoded: string, size: number, what: string): GateOutcome {
    if (this.refusals++ === 0) this.over = size;
    const result =
      `${REFUSED}${this.over} bytes, over the budget of ${this.limit} bytes (max_gate_record_kb); ` +
      `${what}, and every later gate call of this turn is refused. Continue in the next turn, with smaller arguments and results`;
    const record: GateCallRecord = {
      gate_name: name,
      arguments: cut(encoded),
      result,
      is_error: true,
    };
    const outcome: GateOutcome = { record, value: undefined, ok: false };
    // The first refusal is recorded, the rest only answered: a loop of refused calls adds nothing.
    if (this.refusals > 1) outcome.unrecorded = true;
    else this.used += bytes(record.arguments) + bytes(result);
    return outcome;
  }
}

// A budget is made per turn: its map outlives the casts through this one (core/kept-shapes.ts).
keepShape(new GateBudget(0));

function cut(encoded: string): string {
  if (encoded.length <= KEPT_ARGUMENTS) return encoded;
  // Not through a key-like run: the start of a secret alone is no secret the loom redacts.
  return `${cutQuote(encoded, KEPT_ARGUMENTS)} [${bytes(encoded)} bytes, cut]`;
}

/** Keeps an outcome's record on a call's list unless the budget refused it without one. */
export function keepRecord(records: GateCallRecord[], outcome: GateOutcome): void {
  if (!outcome.unrecorded) records.push(outcome.record);
}

/** A call a medium answered itself (its words did not fit the gate): charged like any other. */
export function settle(ctx: GateContext, outcome: GateOutcome): GateOutcome {
  return ctx.budget ? ctx.budget.settle(outcome) : outcome;
}
