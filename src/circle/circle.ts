import { isoNow, monotonicMs } from "../core/clock.js";
import { ConfigError, errorMessage } from "../core/errors.js";
import {
  boolWard,
  composeWards,
  hasTerminationWard,
  type Ward,
  type WardValues,
} from "../core/wards.js";
import type { Entity } from "../core/entity.js";
import type {
  CircleLike,
  EntityContext,
  GateHost,
  Medium,
  MediumSession,
  Presentation,
} from "./medium.js";
import {
  checkArguments,
  renderResult,
  type Gate,
  type GateContext,
  type GateOutcome,
  type TurnBudget,
} from "./gate.js";
import { DONE } from "./gate-names.js";
import { unknownGateMessage, whereInvalid } from "./call-messages.js";
import { ApprovalPolicy, ask, deniedMessage } from "./approvals.js";
import { conversationMedium } from "./mediums/conversation.js";
import { keepShapeOf } from "../core/kept-shapes.js";

export type { GateOutcome } from "./gate.js";

export interface CircleConfig {
  /** MEDIUM-1: exactly one; conversation when absent. */
  medium?: Medium;
  gates: readonly Gate[];
  wards: readonly Ward[] | WardValues;
  /** Which calls ask a person first (issue 25); none when absent. */
  approvals?: ApprovalPolicy | undefined;
}

/** The environment: medium + gates + wards (chapter 4). Validated at construction. */
export class Circle implements CircleLike, GateHost {
  readonly medium: Medium;
  readonly gates: ReadonlyMap<string, Gate>;
  readonly wards: WardValues;
  readonly approvals: ApprovalPolicy;
  readonly prepare: (() => Promise<boolean>) | undefined;
  /** Gates whose entities hold what they run on (an MCP server) while they live. */
  private readonly held: readonly Gate[];

  constructor(config: CircleConfig) {
    this.medium = config.medium ?? conversationMedium;
    this.wards = composeWards(config.wards);
    this.approvals = config.approvals ?? NO_APPROVALS;
    const gates = new Map<string, Gate>();
    for (const gate of config.gates) {
      if (gates.has(gate.name)) {
        throw new ConfigError("duplicate_gate", `circle registers gate ${gate.name} twice`);
      }
      gates.set(gate.name, gate);
    }
    this.gates = gates;
    const preparing = config.gates.filter((g) => g.prepare);
    this.prepare = preparing.length
      ? async () => (await Promise.all(preparing.map((g) => g.prepare!()))).some(Boolean)
      : undefined;
    this.held = config.gates.filter((g) => g.hold);
    if (!gates.has(DONE)) {
      // CIRCLE-1 / LOOP-2; with require_done_tool the loop could never end at all.
      throw new ConfigError(
        "missing_done_gate",
        boolWard(this.wards, "require_done_tool")
          ? "cantrip with require_done must have a done gate (circle must have a done gate)"
          : "circle must have a done gate",
      );
    }
    if (!hasTerminationWard(this.wards)) {
      // CIRCLE-2 / LOOP-2: a cantrip that can run forever is invalid.
      throw new ConfigError(
        "missing_truncation_ward",
        "cantrip must have at least one truncation ward (max_turns or timeout_ms)",
      );
    }
    // One kept from the first on (core/kept-shapes.ts): a program may make a circle per cast.
    keepShapeOf(Circle, () => new Circle({ gates: [SPECIMEN_DONE], wards: [{ max_turns: 1 }] }));
  }

  get requireDone(): boolean {
    return boolWard(this.wards, "require_done_tool");
  }

  get mediumName(): string {
    return this.medium.name;
  }

  present(): Presentation {
    return this.medium.present(this);
  }

  open(context: EntityContext): MediumSession {
    const session = this.medium.open(this, context as EntityContext<Entity>);
    if (!this.held.length) return session;
    return holding(session, this.held, (context as EntityContext<Entity>).entity.id);
  }

  /**
   * Executes one gate call. Failures — unknown gate, bad arguments, a throw — come back as
   * an error record the entity sees (CIRCLE-5), never as an exception of the loop. A gate that
   * answers synchronously is answered synchronously: the code medium then has no reason to
   * suspend its sandbox.
   */
  callGate(
    name: string,
    args: unknown,
    ctx: GateContext,
    /** The JSON text of `args` when the caller has it already (a decoded tool call). */
    text?: string,
  ): GateOutcome | Promise<GateOutcome> {
    const encoded = typeof args === "string" ? args : (text ?? JSON.stringify(args ?? {}));
    ctx.onStart?.(name, encoded);
    // Loom format 3: each call's start and duration, stamped on its record as it settles; a
    // call answered without a record is still told, so its tool_call event has a tool_result.
    const startedAt = isoNow();
    const t0 = monotonicMs();
    // Issue 25: a call the circle's approve: names waits for its answer; nothing runs before.
    const gate = this.gates.get(name);
    const judged: Record<string, string> = {};
    const rule = gate ? this.approvals.asks(name, args, gate.reached, judged) : undefined;
    if (rule !== undefined)
      return settleLater(
        this.askFirst(rule, name, args, encoded, ctx),
        undefined,
        startedAt,
        t0,
        ctx,
      );
    // Issue 38: an exempted call runs on what was judged; the gate refuses to reach elsewhere.
    const runCtx = Object.keys(judged).length ? { ...ctx, judged } : ctx;
    const budget = ctx.budget;
    if (!budget) {
      const out = this.run(name, args, encoded, runCtx);
      return out instanceof Promise
        ? settleLater(out, undefined, startedAt, t0, ctx)
        : settled(out, startedAt, t0, ctx);
    }
    // Issue 20: what the turn records is bounded; past the budget a call is an error (CIRCLE-5).
    const refused = budget.before(name, encoded);
    if (refused) return settled(refused, startedAt, t0, ctx);
    const out = this.run(name, args, encoded, runCtx);
    return out instanceof Promise
      ? settleLater(out, budget, startedAt, t0, ctx)
      : settled(budget.settle(out), startedAt, t0, ctx);
  }

  private async askFirst(
    rule: string,
    name: string,
    args: unknown,
    encoded: string,
    ctx: GateContext,
  ): Promise<GateOutcome> {
    const budget = ctx.budget;
    const refused = budget?.before(name, encoded);
    if (refused) return refused;
    const answer = await ask(this.approvals, rule, name, encoded, ctx);
    const out = answer.allowed
      ? await this.run(name, args, encoded, ctx)
      : failure(name, encoded, deniedMessage(name, answer));
    return budget ? budget.settle(out) : out;
  }

  private run(
    name: string,
    args: unknown,
    encoded: string,
    ctx: GateContext,
  ): GateOutcome | Promise<GateOutcome> {
    const gate = this.gates.get(name);
    if (!gate) return failure(name, encoded, unknownGateMessage(name, [...this.gates.keys()]));
    let parsed: unknown = args;
    if (typeof args === "string") {
      try {
        parsed = args.trim() === "" ? {} : JSON.parse(args);
      } catch (err) {
        return failure(name, encoded, `arguments are not valid JSON (${whereInvalid(err, args)})`);
      }
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      return failure(name, encoded, "arguments must be a JSON object");
    }
    const problem = checkArguments(gate, parsed as Record<string, unknown>);
    if (problem) return failure(name, encoded, `${name}: ${problem}`);
    let value: unknown;
    try {
      value = gate.execute(parsed as Record<string, unknown>, ctx);
    } catch (err) {
      return failure(name, encoded, errorMessage(err));
    }
    if (!isThenable(value)) return success(name, encoded, value);
    return Promise.resolve(value).then(
      (v) => success(name, encoded, v),
      (err: unknown) => failure(name, encoded, errorMessage(err)),
    );
  }
}

const NO_APPROVALS = new ApprovalPolicy([]);

/** The done gate of the circle kept for its shape: never called. */
const SPECIMEN_DONE: Gate = {
  name: DONE,
  description: "",
  parameters: { type: "object", properties: {} },
  execute: () => undefined,
};

/** A session that holds what its gates run on until it is disposed (an MCP server, a page). */
function holding(session: MediumSession, gates: readonly Gate[], entityId: string): MediumSession {
  const releases = gates.map((g) => g.hold!(entityId));
  const held: MediumSession = {
    execute: (response, scope) => session.execute(response, scope),
    dispose: () => {
      session.dispose();
      for (const release of releases.splice(0)) release();
    },
  };
  if (session.rebuild) held.rebuild = (turns, signal) => session.rebuild!(turns, signal);
  return held;
}

/**
 * A settled call: its record stamped with when it began and how long it ran (milliseconds, to
 * the µs); a call answered without a record is told to `onUnrecorded`.
 *
 * The stamped record is a new object literal with every key, in the order the loom writes them,
 * rather than the record with two keys added: V8 reaches an object with added keys through a
 * hidden-class transition it holds weakly, freed by a full GC when no record is alive (between
 * two casts), and every optimized function that reads records was then thrown away (issue 40).
 * The records stamped here come from `success`, `failure` and the turn's budget: these four keys.
 */
function settled(o: GateOutcome, startedAt: string, t0: number, ctx: GateContext): GateOutcome {
  const { gate_name, arguments: encoded, result, is_error } = o.record;
  o.record = {
    gate_name,
    arguments: encoded,
    result,
    is_error,
    started_at: startedAt,
    duration_ms: Math.round((monotonicMs() - t0) * 1000) / 1000,
  };
  if (o.unrecorded) ctx.onUnrecorded?.(o.record);
  return o;
}

/**
 * `settled` once an asynchronous call answers (charged to the turn's budget first, when there
 * is one). A function of its own: callGate itself closes over nothing, so a call answered
 * synchronously (every conversation turn's echo or done) allocates no closure or context.
 */
async function settleLater(
  out: Promise<GateOutcome>,
  budget: TurnBudget | undefined,
  startedAt: string,
  t0: number,
  ctx: GateContext,
): Promise<GateOutcome> {
  const o = await out;
  return settled(budget ? budget.settle(o) : o, startedAt, t0, ctx);
}

function success(name: string, encoded: string, value: unknown): GateOutcome {
  return {
    record: { gate_name: name, arguments: encoded, result: renderResult(value), is_error: false },
    value,
    ok: true,
  };
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  v !== null &&
  (typeof v === "object" || typeof v === "function") &&
  typeof (v as { then?: unknown }).then === "function";

function failure(name: string, encoded: string, message: string): GateOutcome {
  return {
    record: { gate_name: name, arguments: encoded, result: message, is_error: true },
    value: undefined,
    ok: false,
  };
}
