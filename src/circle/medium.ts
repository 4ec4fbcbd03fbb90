import type { Entity } from "../core/entity.js";
import type { EntityContext, MediumSession, Presentation } from "../core/medium.js";
import type { WardValues } from "../core/wards.js";
import type { Gate, GateContext, GateOutcome } from "./gate.js";
import type { ApprovalPolicy } from "./approvals.js";

/**
 * The medium contract, one home for circle/: what the loop needs (core/medium.ts, which core
 * owns and never imports upward) is re-exported here beside what only a circle knows (Medium,
 * GateHost). Files in circle/ import medium types from this file, never from core/medium.ts.
 */
export type {
  CircleLike,
  EntityContext,
  GateCallRecord,
  MediumOutcome,
  MediumSession,
  MediumStep,
  Presentation,
  RebuildTurn,
  TurnScope,
} from "../core/medium.js";

/** What a medium sees of its circle: the gates, the wards, and the one way to call a gate. */
export interface GateHost {
  readonly gates: ReadonlyMap<string, Gate>;
  readonly wards: WardValues;
  /** Which calls ask a person first (issue 25); a medium asks for what is not a gate (bash commands). */
  readonly approvals?: ApprovalPolicy;
  callGate(
    name: string,
    args: unknown,
    ctx: GateContext,
    text?: string,
  ): GateOutcome | Promise<GateOutcome>;
}

/** The interior of a circle (MEDIUM-2): presentation, execution, observation, isolation. */
export interface Medium {
  readonly name: string;
  /** Variables every sandbox of the medium starts with (the code medium's circle.state). */
  readonly state?: Readonly<Record<string, unknown>>;
  present(circle: GateHost): Presentation;
  open(circle: GateHost, context: EntityContext<Entity>): MediumSession;
}
