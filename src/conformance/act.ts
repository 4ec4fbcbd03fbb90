import type { Cantrip } from "../core/cantrip.js";
import type { Entity } from "../core/entity.js";
import type { CastResult } from "../core/result.js";
import type { Loom } from "../loom/core/index.js";
import { ConfigError } from "../core/errors.js";
import { castIntent } from "../spell/inputs.js";
import type { CantripEvent } from "../core/events.js";
import { redactingListener } from "../core/redact-stream.js";
import { exportJsonl } from "../loom/reading/index.js";
import { fork } from "../loom/core/index.js";
import type { Turn } from "../loom/records/index.js";
import type { Built } from "./build.js";
import { runAcpExchange, type AcpRecord } from "./acp.js";

/** What the actions produced, for the expectations to read. */
export interface Outcome {
  cantrip?: Cantrip<Loom>;
  /** The entity `send` actions talk to: summoned on the first send, kept for the next. */
  entity?: Entity<Loom>;
  casts: CastResult<Loom>[];
  error?: unknown;
  events: CantripEvent[];
  /** What a log would show: every event through the redacting listener, and the error. */
  logs: string[];
  extracted?: Turn[];
  /** The setup LLM each construct/cast/send used, in order. */
  llmKeys: string[];
  exported?: string;
  /** What the ACP agent answered to each request of `acp_exchange`. */
  acp?: AcpRecord[];
  /** For a cast that is a fork (by its index in `casts`): the turns it kept from the loom. */
  forkedAfter?: Map<number, number>;
}

const ACTION_KEYS = new Set(["construct_cantrip", "cast", "send", "then", "acp_exchange"]);
const THEN_KEYS = new Set([
  "mutate_identity",
  "delete_turn",
  "annotate_reward",
  "extract_thread",
  "export_loom",
  "fork",
]);

/** Runs the actions in order against the real library. The first error stops the case. */
export async function runActions(
  actions: Record<string, unknown>[],
  built: Built,
  outcome: Outcome,
): Promise<void> {
  for (const action of actions) {
    for (const key of Object.keys(action)) {
      if (!ACTION_KEYS.has(key))
        throw new ConfigError("unsupported_action", `unsupported action: ${key}`);
    }
    const cast = action["cast"] as
      { intent?: unknown; llm?: string; inputs?: Record<string, unknown> } | undefined;
    const send = action["send"] as SendAction | undefined;
    if (
      action["construct_cantrip"] !== undefined ||
      action["cast"] !== undefined ||
      action["send"] !== undefined
    ) {
      // A case may declare only named LLMs and name one per cast: then no `llm` is needed.
      const named = cast?.llm ?? send?.llm;
      const key = named ?? built.defaultLLM;
      const cantrip = await built.cantrip(key);
      if (!named || !outcome.cantrip) outcome.cantrip = cantrip;
      outcome.llmKeys.push(key);
    }
    if (cast !== undefined) {
      const key = cast.llm ?? built.defaultLLM;
      const cantrip = cast.llm ? await built.cantrip(cast.llm) : outcome.cantrip!;
      // Issue 26: with `inputs`, the intent is the spell's, checked and filled as every surface does.
      const intent =
        cast.inputs === undefined
          ? (cast.intent as string)
          : await castIntent(built.spell, {
              inputs: cast.inputs,
              ...(typeof cast.intent === "string" ? { intent: cast.intent } : {}),
            });
      const r = await cantrip.cast(intent, { onEvent: listener(built, outcome) });
      // As the seed's user casts again: the returned next cantrip, which carries the LLM's
      // runtime state (a scripted model's place); the cantrip cast is unchanged (seed 002).
      built.advance(key, r.nextCantrip);
      if (outcome.cantrip === cantrip) outcome.cantrip = r.nextCantrip;
      if (r.status === "failed") throw r.error; // the expectations read a failure as the error
      outcome.casts.push(r);
    }
    if (send !== undefined) await runSend(send, built, outcome);
    if (action["acp_exchange"] !== undefined) {
      const { records, cantrip, llmKey } = await runAcpExchange(action["acp_exchange"], built);
      outcome.cantrip ??= cantrip;
      outcome.llmKeys.push(llmKey);
      outcome.acp = [...(outcome.acp ?? []), ...records];
    }
    const then = action["then"] as Record<string, unknown> | undefined;
    if (then !== undefined) {
      runThen(then, built, outcome);
      if (then["fork"] !== undefined) await runFork(then["fork"], built, outcome);
    }
  }
}

interface SendAction {
  intent?: unknown;
  /** Release the entity and summon it again by its id, as a new process would (ENTITY-5). */
  resummon?: unknown;
  /** The setup LLM of the new summon (default the case's). */
  llm?: string;
}

/**
 * `send: { intent }`: summon once; later sends reach the same entity, whose state accumulates
 * (ENTITY-5). With `resummon: true` the entity is released first and summoned again by its id
 * (`cantrip.summon({ entity })`) from a cantrip built anew on the same loom (`llm:` names its LLM).
 */
async function runSend(send: SendAction, built: Built, outcome: Outcome): Promise<void> {
  const { intent, resummon, llm, ...rest } = send;
  if (Object.keys(rest).length)
    throw new ConfigError("unsupported_action", `unsupported action: send.${Object.keys(rest)[0]}`);
  const onEvent = listener(built, outcome);
  if (resummon === true) {
    const previous = outcome.entity;
    if (!previous)
      throw new ConfigError("no_entity", "send.resummon needs an entity: send to one first");
    previous.dispose();
    const cantrip = llm ? await built.cantrip(llm) : outcome.cantrip!;
    outcome.entity = cantrip.summon({ entity: previous.id, onEvent });
  }
  outcome.entity ??= outcome.cantrip!.summon({ onEvent });
  const r = await outcome.entity.send(intent as string);
  if (r.status === "failed") throw r.error;
  outcome.casts.push(r);
}

/** Keeps every event, and its redacted form as a log line (PROD-8: logs_exclude reads them). */
function listener(built: Built, outcome: Outcome): (e: CantripEvent) => void {
  const log = redactingListener((e) => outcome.logs.push(JSON.stringify(e)), built.redactor);
  return (e) => {
    outcome.events.push(e);
    log(e);
  };
}

function runThen(then: Record<string, unknown>, built: Built, outcome: Outcome): void {
  for (const key of Object.keys(then)) {
    if (!THEN_KEYS.has(key))
      throw new ConfigError("unsupported_action", `unsupported action: then.${key}`);
  }
  const turns = built.loom.turns();
  const turnAt = (i: unknown): Turn => {
    const t = turns[Number(i)];
    if (!t)
      throw new ConfigError(
        "no_such_turn",
        `the loom has no turn ${String(i)} (it has ${turns.length})`,
      );
    return t;
  };
  if (then["mutate_identity"] !== undefined) {
    const identity = (outcome.cantrip ?? failNoCantrip()).identity as unknown as Record<
      string,
      unknown
    >;
    for (const [key, value] of Object.entries(then["mutate_identity"] as object)) {
      if (key === "system_prompt") identity["systemPrompt"] = value;
      else (identity["hyperparameters"] as Record<string, unknown>)[key] = value;
    }
  }
  if (then["delete_turn"] !== undefined) built.loom.deleteTurn(turnAt(then["delete_turn"]).id);
  if (then["annotate_reward"] !== undefined) {
    const { turn, reward } = then["annotate_reward"] as { turn: number; reward: number };
    built.loom.annotateReward(turnAt(turn).id, reward);
  }
  if (then["extract_thread"] !== undefined) {
    const cast = outcome.casts[Number(then["extract_thread"])];
    if (!cast?.lastTurnId)
      throw new ConfigError(
        "no_such_thread",
        `no cast ${JSON.stringify(then["extract_thread"])} to extract a thread from`,
      );
    outcome.extracted = built.loom.thread(cast.lastTurnId);
  }
  if (then["export_loom"] !== undefined) {
    const opts = then["export_loom"] as { format?: string; redaction?: "default" | "none" };
    if (opts.format && opts.format !== "jsonl")
      throw new ConfigError("unsupported_action", `unsupported export format ${opts.format}`);
    outcome.exported = exportJsonl(built.loom, {
      redaction: opts.redaction ?? "default",
      redact: (t) => built.redactor.redact(t),
    });
  }
}

/**
 * `then: fork: { from_turn: N, intent, llm? }` (LOOM-4): the fork continues after the loom's Nth
 * turn (counting from 1, in the order turns were written), so its context holds that turn's path
 * from the root. The fork's result joins the casts; its thread counts the turns it kept.
 */
async function runFork(spec: unknown, built: Built, outcome: Outcome): Promise<void> {
  const { from_turn, intent, llm, ...rest } = spec as {
    from_turn?: number;
    intent?: string;
    llm?: string;
  };
  if (Object.keys(rest).length)
    throw new ConfigError(
      "unsupported_action",
      `unsupported action: then.fork.${Object.keys(rest)[0]}`,
    );
  const n = Number(from_turn);
  const turn = Number.isInteger(n) && n >= 1 ? built.loom.turns()[n - 1] : undefined;
  if (!turn)
    throw new ConfigError(
      "no_such_turn",
      `then.fork: the loom has no turn ${String(from_turn)} (turns count from 1)`,
    );
  const cantrip = llm ? await built.cantrip(llm) : (outcome.cantrip ?? failNoCantrip());
  const r = await fork(cantrip, turn.id, {
    intent: String(intent ?? ""),
    onEvent: listener(built, outcome),
  });
  if (r.status === "failed") throw r.error;
  outcome.forkedAfter ??= new Map();
  outcome.forkedAfter.set(outcome.casts.length, built.loom.thread(turn.id).length);
  outcome.casts.push(r);
}

function failNoCantrip(): never {
  throw new ConfigError(
    "no_cantrip",
    "mutate_identity needs a cantrip: construct or cast one first",
  );
}
