/**
 * A circle's approvals (issue 25): which gate calls (and bash commands) ask a person before they
 * run, and the asking itself. Kept by `Circle.callGate`, the one way every medium calls a gate,
 * so no medium can run an approved gate without its answer. Fail closed: no approver, a
 * timeout, a cancel, a throw or a malformed answer deny the call.
 */
import type {
  ApprovalAnswer,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalSource,
  Approver,
} from "../core/approval.js";
import { NO_APPROVER } from "../core/approval.js";
import { errorMessage } from "../core/errors.js";
import { newId } from "../core/ids.js";
import { monotonicMs, timerDelay } from "../core/clock.js";
import { reachedByName } from "./approval-reach.js";
import { commandMatches, simpleCommands } from "./approval-command.js";

/** What a gate call reaches, by argument name (`Gate.reached`). */
export type Reach = (args: Record<string, unknown>) => Readonly<Record<string, string | undefined>>;

/** Two minutes: `approval_timeout_ms` changes it. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

/** One `approve:` item: a gate (name or glob) with argument globs that need no ask, or a command glob. */
export interface ApprovalRule {
  gate?: string;
  /** Bash medium: a command matching this glob asks (as the pseudo-gate `bash`). */
  command?: string;
  /** Argument name → glob: when every one matches what the call reaches, the call needs no ask. */
  unless?: Readonly<Record<string, string>>;
}

/**
 * `*` any run of characters, `?` one character, the rest literal; the whole text must match.
 * One pass that remembers only the last `*` (a later star never needs an earlier one undone),
 * so a model's long text against a glob of many stars cannot backtrack without end as a
 * regular expression of `.*` runs did. Characters are code points, as `?` promises.
 */
export function globMatch(glob: string, text: string): boolean {
  const g = [...glob];
  const t = [...text];
  let gi = 0;
  let ti = 0;
  let star = -1; // the glob position after the last `*` seen
  let from = 0; // the text position that star matched up to
  while (ti < t.length) {
    if (gi < g.length && (g[gi] === "?" || (g[gi] !== "*" && g[gi] === t[ti]))) {
      gi++;
      ti++;
    } else if (gi < g.length && g[gi] === "*") {
      star = ++gi;
      from = ti;
    } else if (star >= 0) {
      gi = star; // the last star takes one more character
      ti = ++from;
    } else return false;
  }
  while (gi < g.length && g[gi] === "*") gi++;
  return gi === g.length;
}

/** What a spell's circle asks for: rules and how long a question waits. A value. */
export class ApprovalPolicy {
  constructor(
    readonly rules: readonly ApprovalRule[],
    readonly timeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS,
  ) {}

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /**
   * The rule that asks for this gate call, described; undefined when the call needs no ask.
   * `unless:` globs match what the call reaches (`reach`, the gate's own account: a file gate's
   * path resolved inside its root), not the text the model wrote (issue 38). What an exempting
   * glob judged is put in `judged`, by argument name: the call must reach it when it runs.
   */
  asks(
    gate: string,
    args: unknown,
    reach?: Reach,
    judged: Record<string, string> = {},
  ): string | undefined {
    for (const rule of this.rules) {
      if (rule.gate === undefined || !globMatch(rule.gate, gate)) continue;
      if (rule.unless && exempt(rule.unless, args, reach, judged)) continue;
      return describe(rule);
    }
    return undefined;
  }

  /**
   * The rule that asks for this bash command line; undefined when it needs no ask. A `gate: bash`
   * rule asks for every line; a `command:` glob for a line any simple command of which it matches
   * (issue 38: `cd . && git push` is asked by `git push*`), and for a line that cannot be parsed.
   */
  async asksCommand(line: string): Promise<string | undefined> {
    const every = this.rules.find((r) => r.gate === "bash");
    if (every) return describe(every);
    const globs = this.rules.filter((r) => r.command !== undefined);
    if (!globs.length) return undefined;
    const commands = await simpleCommands(line).catch(() => undefined); // fail closed
    if (commands === undefined) return `${describe(globs[0]!)} (a line that cannot be parsed asks)`;
    const rule = globs.find((r) => commands.some((words) => commandMatches(r.command!, words)));
    return rule ? describe(rule) : undefined;
  }

  /** A child's approvals under its parent's: every parent rule stays, so a child only asks more. */
  compose(child: ApprovalPolicy | undefined): ApprovalPolicy {
    if (!child || child === this) return this;
    return new ApprovalPolicy(
      [...this.rules, ...child.rules],
      Math.min(this.timeoutMs, child.timeoutMs),
    );
  }

  /** What the spell asks for, one line per rule (`spell validate`). */
  describe(): string[] {
    return this.rules.map(describe);
  }
}

function exempt(
  unless: Readonly<Record<string, string>>,
  args: unknown,
  reach: Reach | undefined,
  judged: Record<string, string>,
): boolean {
  let parsed = args;
  if (typeof args === "string") {
    try {
      parsed = JSON.parse(args);
    } catch {
      return false;
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return false;
  const values = parsed as Record<string, unknown>;
  const reached = reach?.(values) ?? {};
  // Every named argument must reach what its glob names; an absent one, or one whose reach cannot
  // be told, asks.
  const seen: Record<string, string> = {};
  const all = Object.entries(unless).every(([key, glob]) => {
    if (!Object.hasOwn(values, key)) return false;
    const value = Object.hasOwn(reached, key) ? reached[key] : reachedByName(key, values[key]);
    if (value === undefined || !globMatch(glob, value)) return false;
    seen[key] = value;
    return true;
  });
  if (all) Object.assign(judged, seen);
  return all;
}

function describe(rule: ApprovalRule): string {
  if (rule.command !== undefined) return `command ${rule.command}`;
  const unless = rule.unless
    ? ` unless ${Object.entries(rule.unless)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}`
    : "";
  return `gate ${rule.gate}${unless}`;
}

/** Who asks, and where the turn's records go: the part of a gate context approvals read. */
export interface AskContext {
  readonly entityId: string;
  readonly turnId: string;
  readonly depth: number;
  readonly signal: AbortSignal;
  readonly approver?: Approver | undefined;
  readonly approvals?: ApprovalRecord[] | undefined;
}

/**
 * Asks the approver about one call and records the question and its answer on the turn. Nothing
 * runs before this resolves; whatever is not a clear `allow: true` is a denial.
 */
export async function ask(
  policy: ApprovalPolicy,
  rule: string,
  gate: string,
  encoded: string,
  ctx: AskContext,
): Promise<ApprovalRecord> {
  const id = newId("appr");
  const started = monotonicMs();
  const decided = await decide(policy, ctx, { id, gate, rule, encoded });
  const record: ApprovalRecord = {
    id,
    gate,
    arguments: encoded,
    rule,
    allowed: decided.allowed,
    by: decided.by,
    duration_ms: Math.round(monotonicMs() - started),
  };
  if (decided.reason !== undefined) record.reason = decided.reason;
  ctx.approvals?.push(record);
  return record;
}

interface Decision {
  allowed: boolean;
  by: ApprovalSource;
  reason?: string;
}

async function decide(
  policy: ApprovalPolicy,
  ctx: AskContext,
  q: { id: string; gate: string; rule: string; encoded: string },
): Promise<Decision> {
  if (!ctx.approver) return { allowed: false, by: "none", reason: NO_APPROVER };
  if (ctx.signal.aborted) return { allowed: false, by: "cancel", reason: "the cast was cancelled" };
  const controller = new AbortController();
  const request: ApprovalRequest = {
    id: q.id,
    gate: q.gate,
    arguments: q.encoded,
    rule: q.rule,
    entityId: ctx.entityId,
    turnId: ctx.turnId,
    depth: ctx.depth,
    signal: AbortSignal.any([ctx.signal, controller.signal]),
  };
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Decision>((resolve) => {
    const timeout = { allowed: false, by: "timeout", reason: "timed out" } as const;
    timer = setTimeout(() => resolve(timeout), timerDelay(policy.timeoutMs));
    onAbort = () => resolve({ allowed: false, by: "cancel", reason: "the cast was cancelled" });
    ctx.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const answered = Promise.resolve()
      .then(() => ctx.approver!(request))
      .then(normalize, (err: unknown) => ({
        allowed: false,
        by: "none" as const,
        reason: `the approver failed: ${errorMessage(err)}`,
      }));
    return await Promise.race([answered, stopped]);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort!);
    controller.abort("answered");
  }
}

const SOURCES = new Set<string>([
  "terminal",
  "editor",
  "http",
  "api",
  "flag",
  "record",
  "none",
  "timeout",
  "cancel",
]);

function normalize(answer: ApprovalAnswer): Decision {
  if (answer === true) return { allowed: true, by: "api" };
  if (answer === false) return { allowed: false, by: "api", reason: "denied by the user" };
  if (answer === null || typeof answer !== "object" || typeof answer.allow !== "boolean")
    return { allowed: false, by: "none", reason: "malformed answer" };
  const by = typeof answer.by === "string" && SOURCES.has(answer.by) ? answer.by : "api";
  if (answer.allow) return { allowed: true, by };
  const reason = typeof answer.reason === "string" ? answer.reason : "denied by the user";
  return { allowed: false, by, reason };
}

/** The observation of a denied call: names the gate and why. */
export function deniedMessage(gate: string, record: ApprovalRecord): string {
  return `${gate} was not run: approval denied (${record.reason ?? "denied"}; approve: ${record.rule})`;
}
