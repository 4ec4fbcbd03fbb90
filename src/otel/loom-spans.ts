/**
 * A recorded loom → the same GenAI spans `--otel` sends live (`spell loom otel`). Times come
 * from the loom: a turn ends at its timestamp and lasted its duration_ms; a gate call's own
 * `started_at`/`duration_ms` (newer looms) place its span, else it spans its turn. A child
 * entity's spans hang under the delegation gate call of the turn that spawned it.
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { DELEGATION_GATES } from "../circle/gate-names.js";
import type { LoomRecord, Turn } from "../loom/records/index.js";
import type { OtelApi } from "./api.js";
import {
  agentAttributes,
  agentSpanName,
  chatAttributes,
  childAgentName,
  chatSpanName,
  contentValue,
  finishReasons,
  GATE_ERROR,
  gateTiming,
  toolAttributes,
  toolSpanName,
  turnModel,
  usageAttributes,
  type ModelId,
} from "./attributes.js";

export interface LoomSpanOptions {
  /** The root agents' `gen_ai.agent.name`. */
  name: string;
  content: boolean;
  redact: (text: string) => string;
}

const UNKNOWN: ModelId = { provider: "unknown", model: "unknown" };

/** Sends every entity of the loom's records as spans; returns how many entities. */
export function loomSpans(
  api: OtelApi,
  tracer: Tracer,
  records: readonly LoomRecord[],
  options: LoomSpanOptions,
): number {
  // A hostile loom's turn that names no entity is left out; one of a few fields of wrong types
  // is sent with those read as absent (sane below).
  const turns = records
    .filter(
      (r): r is { type: "turn" } & Turn => r.type === "turn" && typeof r.entity_id === "string",
    )
    .map(sane);
  const byId = new Map(turns.map((t) => [t.id, t]));
  const byEntity = new Map<string, Turn[]>();
  for (const t of turns) {
    const list = byEntity.get(t.entity_id);
    if (list) list.push(t);
    else byEntity.set(t.entity_id, [t]);
  }
  // A child entity: its first turn hangs from a turn of another entity (COMP-5).
  const spawnedBy = new Map<string, string[]>();
  const roots: string[] = [];
  for (const [entity, list] of byEntity) {
    const first = list.reduce((a, b) => (b.sequence < a.sequence ? b : a));
    const parent = first.parent_id ? byId.get(first.parent_id) : undefined;
    if (parent && parent.entity_id !== entity) {
      const spawned = spawnedBy.get(parent.id);
      if (spawned) spawned.push(entity);
      else spawnedBy.set(parent.id, [entity]);
    } else roots.push(entity);
  }
  const replay = new Replay(api, tracer, options, byEntity, spawnedBy);
  for (const entity of roots) replay.tree(entity, api.ROOT_CONTEXT);
  return byEntity.size;
}

const turnEnd = (t: Turn): number => Date.parse(t.metadata.timestamp);
const turnStart = (t: Turn): number => turnEnd(t) - (t.metadata.duration_ms || 0);

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/**
 * A loom's turn with the fields the spans read of the types they read (a hostile or damaged
 * loom's record may hold anything): numbers that are not are 0, a timestamp that is not a
 * string is none, gate calls that are not objects are left out.
 */
function sane(t: Turn): Turn {
  const m: Record<string, unknown> = isObject(t.metadata) ? t.metadata : {};
  const metadata = {
    ...m,
    timestamp: typeof m["timestamp"] === "string" ? m["timestamp"] : "",
    duration_ms: num(m["duration_ms"]),
    tokens_prompt: num(m["tokens_prompt"]),
    tokens_completion: num(m["tokens_completion"]),
    tokens_cached: num(m["tokens_cached"]),
  } as Turn["metadata"];
  const gate_calls = (Array.isArray(t.gate_calls) ? t.gate_calls : [])
    .filter(isObject)
    .map((c) => ({ ...c, gate_name: typeof c.gate_name === "string" ? c.gate_name : "unknown" }));
  return { ...t, sequence: num(t.sequence), metadata, gate_calls };
}

/** The least and the greatest of many numbers (a spread of a million arguments overflows). */
function least(values: number[]): number {
  let out = Infinity;
  for (const v of values) if (v < out) out = v;
  return out;
}
function greatest(values: number[]): number {
  let out = -Infinity;
  for (const v of values) if (v > out) out = v;
  return out;
}

/** A child entity to send under a delegation call's span, before that span ends. */
interface Child {
  entity: string;
  depth: number;
  ctx: Context;
}

class Replay {
  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    private readonly options: LoomSpanOptions,
    private readonly byEntity: Map<string, Turn[]>,
    private readonly spawnedBy: Map<string, string[]>,
  ) {}

  /**
   * A root entity and every entity under it, depth first, each child's spans sent inside its
   * delegation call's span. The entities in progress are a stack of generators, not of calls: a
   * loom's chain of children may be any number of levels deep.
   */
  tree(entityId: string, parent: Context): void {
    const stack = [this.entity(entityId, 0, parent)];
    while (stack.length > 0) {
      const step = stack[stack.length - 1]!.next();
      if (step.done) stack.pop();
      else stack.push(this.entity(step.value.entity, step.value.depth, step.value.ctx));
    }
  }

  /** An entity's spans; yields each child entity to send before its delegation call's span ends. */
  private *entity(entityId: string, depth: number, parent: Context): Generator<Child, void> {
    const name = childAgentName(this.options.name, depth);
    const list = [...(this.byEntity.get(entityId) ?? [])].sort((a, b) => a.sequence - b.sequence);
    if (list.length === 0) return;
    const model = turnModel(list[0]!) ?? UNKNOWN;
    const start = least(list.map(turnStart));
    const span = this.start(
      agentSpanName(name),
      parent,
      agentAttributes(name, entityId, model),
      start,
    );
    const ctx = this.api.trace.setSpan(parent, span);
    const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    for (const turn of list) {
      usage.promptTokens += turn.metadata.tokens_prompt;
      usage.completionTokens += turn.metadata.tokens_completion;
      usage.cachedTokens += turn.metadata.tokens_cached;
      yield* this.turn(turn, depth, ctx);
    }
    span.setAttributes(usageAttributes(usage));
    const last = list[list.length - 1]!;
    if (last.truncated) span.setAttribute("spellbook.truncated", last.reason ?? "truncated");
    span.end(greatest(list.map(turnEnd)));
  }

  private *turn(turn: Turn, depth: number, ctx: Context): Generator<Child, void> {
    const model = turnModel(turn) ?? UNKNOWN;
    const timings = turn.gate_calls.map(gateTiming);
    const firstGate = timings.find((t) => t !== undefined)?.start;
    const chat = this.start(chatSpanName(model), ctx, chatAttributes(model), turnStart(turn), true);
    chat.setAttributes(
      usageAttributes({
        promptTokens: turn.metadata.tokens_prompt,
        completionTokens: turn.metadata.tokens_completion,
        cachedTokens: turn.metadata.tokens_cached,
      }),
    );
    const reason = turn.metadata["finish_reason"] ?? turn.metadata["stop_reason"];
    chat.setAttribute(
      "gen_ai.response.finish_reasons",
      typeof reason === "string" ? [reason] : finishReasons(turn.gate_calls.length),
    );
    if (this.options.content && turn.utterance)
      chat.setAttribute("gen_ai.output.messages", this.text(turn.utterance));
    chat.end(firstGate ?? turnEnd(turn));
    const children = this.spawnedBy.get(turn.id) ?? [];
    const delegations = turn.gate_calls.filter((c) => DELEGATION_GATES.includes(c.gate_name));
    for (const [i, call] of turn.gate_calls.entries()) {
      const time = timings[i] ?? { start: turnStart(turn), end: turnEnd(turn) };
      const span = this.start(
        toolSpanName(call.gate_name),
        ctx,
        toolAttributes(call.gate_name),
        time.start,
      );
      if (this.options.content) {
        span.setAttribute("gen_ai.tool.call.arguments", this.text(call.arguments));
        span.setAttribute("gen_ai.tool.call.result", this.text(call.result));
      }
      if (call.is_error) {
        span.setAttribute("error.type", GATE_ERROR);
        span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: GATE_ERROR });
      }
      // One child per call_entity call in order; a batch (or an uneven count): all under the first.
      const at = delegations.indexOf(call);
      const mine =
        at < 0
          ? []
          : children.length === delegations.length
            ? [children[at]!]
            : at === 0
              ? children
              : [];
      const toolCtx = this.api.trace.setSpan(ctx, span);
      for (const child of mine) yield { entity: child, depth: depth + 1, ctx: toolCtx };
      span.end(time.end);
    }
  }

  /** A content attribute's value: redacted, capped (attributes.ts). */
  private text(value: unknown): string {
    return contentValue(value, this.options.redact);
  }

  private start(
    name: string,
    ctx: Context,
    attributes: Attributes,
    time: number,
    client = false,
  ): Span {
    const kind = client ? this.api.SpanKind.CLIENT : this.api.SpanKind.INTERNAL;
    return this.tracer.startSpan(name, { kind, attributes, startTime: time }, ctx);
  }
}
