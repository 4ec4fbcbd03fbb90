/** A circle's `approve:` and `approval_timeout_ms` (issue 25), compiled to the circle's policy. */
import { ConfigError } from "../core/errors.js";
import {
  ApprovalPolicy,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type ApprovalRule,
} from "../circle/approvals.js";
import type { ErrorList } from "./collect.js";
import { Circle, type CircleConfig } from "../circle/circle.js";

interface ApproveSpec {
  approve?: readonly { gate?: string; command?: string; unless?: Record<string, string> }[];
  approval_timeout_ms?: number;
}

/** The circle with its approvals compiled (issue 25); a bad approve: item is an error at its place. */
export function circleOf(spec: ApproveSpec, errors: ErrorList, config: CircleConfig): Circle {
  return new Circle({ ...config, approvals: compileApprovals(spec, errors) });
}

/** The policy, or undefined when the circle asks for nothing; each bad item is an error at its place. */
export function compileApprovals(spec: ApproveSpec, errors: ErrorList): ApprovalPolicy | undefined {
  if (!spec.approve?.length) return undefined;
  const rules: ApprovalRule[] = [];
  spec.approve.forEach((item, i) => {
    const rule = errors.guard(["circle", "approve", i], () => approvalRule(item));
    if (rule) rules.push(rule);
  });
  return new ApprovalPolicy(rules, spec.approval_timeout_ms ?? DEFAULT_APPROVAL_TIMEOUT_MS);
}

function approvalRule(item: NonNullable<ApproveSpec["approve"]>[number]): ApprovalRule {
  const { gate, command, unless } = item;
  if ((gate === undefined) === (command === undefined))
    throw new ConfigError(
      "bad_approval_rule",
      'an approve: item names either a gate (gate: write) or a bash command (command: "git push*"), not both',
    );
  if (gate === "" || command === "")
    throw new ConfigError("bad_approval_rule", "an approve: item's pattern is empty");
  if (command !== undefined) {
    if (unless)
      throw new ConfigError("bad_approval_rule", "unless: belongs to a gate: item, not command:");
    return { command };
  }
  return unless ? { gate: gate!, unless } : { gate: gate! };
}
