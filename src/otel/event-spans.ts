/**
 * The engine's events → GenAI spans, as they happen: an `invoke_agent` span per entity's cast,
 * a `chat {model}` span per LLM call, an `execute_tool {gate}` span per gate call. A child
 * entity's first event comes while its parent's delegation gate call is open: its agent span
 * nests under that call's span. Events carry no content unless `content` is on, and then only
 * what the redactor let through.
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { CantripEvent, EventListener } from "../core/events.js";
import type { LLMServer, Usage } from "../core/contract.js";
import type { GateCallRecord } from "../core/medium.js";
import type { LLMId } from "../core/loom-writer.js";
import { addUsage, emptyUsage } from "../core/contract.js";
import { DELEGATION_GATES } from "../circle/gate-names.js";
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
  usageAttributes,
  type ModelId,
} from "./attributes.js";
import type { OtelApi } from "./api.js";
import { abortErrorType, type GenAiMetrics } from "./metrics.js";

export interface EventSpanOptions {
  /** The spell's name: the root agent's `gen_ai.agent.name`. */
  name: string;
  /** The root entity's LLM until its first query names the LLM it asked (every entity's own). */
  model: ModelId;
  /** Send utterances, gate arguments and results (redacted). */
  content: boolean;
  redact: (text: string) => string;
  /** Set on the root entity's span when it opens (an eval cast's case and repeat). */
  rootAttributes?: Attributes | undefined;
  /** The root entity's span's parent (an eval run's span); default none: a trace of its own. */
  parent?: Context | undefined;
  /**
   * The root entity's span at its `final`, handed over open instead of ended (its usage set):
   * `spell eval` adds the cast's verdict and its judge's calls, then ends it at `end`.
   */
  keepRoot?: ((span: Span, ctx: Context, end: number) => void) | undefined;
  /** The GenAI client metrics each LLM call is measured into (none: spans only). */
  metrics?: GenAiMetrics | undefined;
}

interface OpenTool {
  gate: string;
  span: Span;
}

interface EntitySpans {
  name: string;
  /** Levels below the root entity (0 for the root). */
  depth: number;
  model: ModelId;
  span: Span;
  ctx: Context;
  usage: Usage;
  chat?: {
    span: Span;
    started: number;
    end?: number;
    reason?: string;
    server?: LLMServer;
    responseModel?: string;
    /** The call's own tokens (its `usage` event). */
    usage?: Usage;
  };
  /** The model is the one the entity's own LLM said it is (message_start), not a guess. */
  known?: boolean;
  tools: OpenTool[];
}

/** A listener turning events into spans, and `end()` closing whatever a failed cast left open. */
export function eventSpans(
  api: OtelApi,
  tracer: Tracer,
  options: EventSpanOptions,
): { listener: EventListener; end: (errorType?: string) => void; idle: () => boolean } {
  const spans = new EventSpans(api, tracer, options);
  return {
    listener: (e) => spans.on(e),
    end: (errorType) => spans.end(errorType),
    idle: () => spans.idle(),
  };
}

class EventSpans {
  private readonly entities = new Map<string, EntitySpans>();
  /** The entity whose cast this is (the first one seen). */
  private root: string | undefined;

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    private readonly options: EventSpanOptions,
  ) {}

  on(event: CantripEvent): void {
    const e = this.open(event.entityId);
    switch (event.type) {
      case "message_start":
        this.endChat(e, 0);
        if (event.llm) this.asked(e, event.llm);
        e.chat = {
          span: this.start(chatSpanName(e.model), e.ctx, chatAttributes(e.model), true),
          started: Date.now(),
          ...(event.server ? { server: event.server } : {}),
        };
        if (event.server)
          e.chat.span.setAttributes({
            "server.address": event.server.address,
            "server.port": event.server.port,
          });
        return;
      case "message_complete":
        if (!e.chat) return;
        e.chat.end = Date.now();
        if (event.finishReason !== undefined) e.chat.reason = event.finishReason;
        if (event.responseId !== undefined)
          e.chat.span.setAttribute("gen_ai.response.id", event.responseId);
        if (event.responseModel !== undefined) {
          e.chat.span.setAttribute("gen_ai.response.model", event.responseModel);
          e.chat.responseModel = event.responseModel;
        }
        if (this.options.content && event.content !== null)
          e.chat.span.setAttribute("gen_ai.output.messages", this.text(event.content));
        return;
      case "usage":
        return this.usage(e, event.usage);
      case "tool_call": {
        const attributes = toolAttributes(event.gate);
        if (event.callId !== undefined) attributes["gen_ai.tool.call.id"] = event.callId;
        const span = this.start(toolSpanName(event.gate), e.ctx, attributes);
        if (this.options.content)
          span.setAttribute("gen_ai.tool.call.arguments", this.text(event.arguments));
        e.tools.push({ gate: event.gate, span });
        return;
      }
      case "tool_result":
        return this.toolResult(e, event.record);
      case "step_complete":
        return this.endChat(e, event.gates.length);
      case "final": {
        // A call still waiting for its reply was stopped by a ward or the caller.
        this.endChat(e, 0, event.truncated ? abortErrorType(event.reason) : "aborted");
        const keep = event.entityId === this.root ? this.options.keepRoot : undefined;
        closeEntity(e, event.truncated ? event.reason : undefined, !keep);
        keep?.(e.span, e.ctx, Date.now());
        this.entities.delete(event.entityId);
        return;
      }
      default:
        return;
    }
  }

  /** A reply's tokens: the entity's sum, its chat span's attributes and its call's metrics. */
  private usage(e: EntitySpans, usage: Usage): void {
    addUsage(e.usage, usage);
    if (!e.chat) return;
    e.chat.usage = usage;
    e.chat.span.setAttributes(usageAttributes(usage));
  }

  /** No entity's cast is open. */
  idle(): boolean {
    return this.entities.size === 0;
  }

  /**
   * Ends what a cast that failed (no `final`) left open, marked as an error; a call still
   * waiting for its reply gets `errorType` (the failure's class, when the caller knows it).
   */
  end(errorType = "unfinished"): void {
    for (const e of this.entities.values()) {
      this.endChat(e, 0, errorType);
      for (const t of e.tools) t.span.end();
      e.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: "the cast did not finish" });
      e.span.setAttribute("error.type", "unfinished");
      closeEntity(e, undefined);
    }
    this.entities.clear();
  }

  private start(name: string, ctx: Context, attributes: Attributes, client = false): Span {
    const kind = client ? this.api.SpanKind.CLIENT : this.api.SpanKind.INTERNAL;
    return this.tracer.startSpan(name, { kind, attributes }, ctx);
  }

  private open(entityId: string): EntitySpans {
    const known = this.entities.get(entityId);
    if (known) return known;
    const parent = delegationParent(this.entities);
    const depth = parent ? parent.depth + 1 : 0;
    const name = childAgentName(this.options.name, depth);
    const model = parent?.model ?? this.options.model;
    const { trace, ROOT_CONTEXT } = this.api;
    this.root ??= entityId;
    const top = this.options.parent ?? ROOT_CONTEXT;
    const parentCtx = parent ? trace.setSpan(parent.ctx, parent.tool.span) : top;
    const attributes = agentAttributes(name, entityId, model);
    const root = this.root === entityId ? this.options.rootAttributes : undefined;
    const span = this.start(agentSpanName(name), parentCtx, { ...attributes, ...root });
    const ctx = trace.setSpan(parentCtx, span);
    const state: EntitySpans = { name, depth, model, span, ctx, usage: emptyUsage(), tools: [] };
    this.entities.set(entityId, state);
    return state;
  }

  /** A content attribute's value: redacted, capped (attributes.ts). */
  private text(value: unknown): string {
    return contentValue(value, this.options.redact);
  }

  private toolResult(e: EntitySpans, record: GateCallRecord): void {
    const at = e.tools.findIndex((t) => t.gate === record.gate_name);
    if (at < 0) return;
    const [{ span }] = e.tools.splice(at, 1) as [OpenTool];
    if (this.options.content)
      span.setAttribute("gen_ai.tool.call.result", this.text(record.result));
    if (record.is_error) {
      span.setAttribute("error.type", GATE_ERROR);
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: GATE_ERROR });
    }
    span.end(gateTiming(record)?.end);
  }

  /** The LLM the entity asked, as the loop names it: its agent span is corrected once. */
  private asked(e: EntitySpans, llm: LLMId): void {
    e.model = { provider: llm.provider, model: llm.model ?? e.model.model };
    if (e.known) return;
    e.known = true;
    e.span.setAttributes({
      "gen_ai.provider.name": e.model.provider,
      "gen_ai.request.model": e.model.model,
    });
  }

  /** Ends the open chat span and measures the call; `unanswered` is its error.type if no reply. */
  private endChat(e: EntitySpans, gates: number, unanswered = "unfinished"): void {
    if (!e.chat) return;
    const answered = e.chat.end !== undefined;
    this.options.metrics?.chat({
      model: e.model,
      responseModel: e.chat.responseModel,
      server: e.chat.server,
      seconds: ((e.chat.end ?? Date.now()) - e.chat.started) / 1000,
      usage: e.chat.usage,
      errorType: answered ? undefined : unanswered,
    });
    if (!answered) {
      e.chat.span.setAttribute("error.type", unanswered);
      e.chat.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: unanswered });
    }
    // The provider's own word when it gave one; else what the turn did.
    const reasons = e.chat.reason === undefined ? finishReasons(gates) : [e.chat.reason];
    e.chat.span.setAttribute("gen_ai.response.finish_reasons", reasons);
    e.chat.span.end(e.chat.end);
    delete e.chat;
  }
}

/** The entity whose delegation gate call opened last and is still open: a new entity's parent. */
function delegationParent(
  entities: Map<string, EntitySpans>,
): (EntitySpans & { tool: OpenTool }) | undefined {
  let found: (EntitySpans & { tool: OpenTool }) | undefined;
  for (const e of entities.values())
    for (const tool of e.tools) if (DELEGATION_GATES.includes(tool.gate)) found = { ...e, tool };
  return found;
}

function closeEntity(e: EntitySpans, truncation: string | undefined, end = true): void {
  e.span.setAttributes(usageAttributes(e.usage));
  if (truncation !== undefined) e.span.setAttribute("spellbook.truncated", truncation);
  if (end) e.span.end();
}
