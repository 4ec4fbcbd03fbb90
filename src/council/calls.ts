/**
 * Every LLM call of a council run, and its turn in the loom. The council's calls are turns of
 * one entity, in one thread: triage → seats (in seat order) → red team → judge … → synthesis,
 * so `spell loom export` shows the deliberation and the `replay` provider plays it back in order.
 */
import { isoNow } from "../core/clock.js";
import { errorMessage, ModelError, SystemError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import {
  addUsage,
  emptyUsage,
  type LLM,
  type LLMResponse,
  type Message,
  type Usage,
} from "../core/contract.js";
import type { Loom } from "../loom/core/index.js";
import type { Turn } from "../loom/records/index.js";
import type { CallSite, CouncilEvent, CouncilEventListener } from "./events.js";

export type { CallSite } from "./events.js";

export interface CallRequest {
  llm: LLM;
  messages: Message[];
  site: CallSite;
}

interface Answer {
  text: string;
  request: CallRequest;
  metadata: Record<string, unknown>;
  usage: Usage;
  ms: number;
}

/** One run's calls: the loom thread it writes (when there is a loom) and the usage it adds up. */
export class CouncilCalls {
  readonly usage: Usage = emptyUsage();
  costUsd = 0;
  calls = 0;
  private readonly entityId = newId("ent");
  private parentId: string | null = null;
  private sequence = 0;

  constructor(
    private readonly loom: Loom | undefined,
    private readonly cantripId: string,
    private readonly onEvent?: CouncilEventListener,
    private readonly signal?: AbortSignal,
  ) {
    // One listener on the run's signal, whatever the number of queries at once (eleven seats
    // each adding their own, and their clients theirs, made Node warn of too many listeners).
    signal?.addEventListener(
      "abort",
      () => {
        for (const query of this.running) query.abort(signal.reason);
      },
      { once: true },
    );
  }

  /** The queries waiting for a reply, each with a signal of its own that the run's aborts. */
  private readonly running = new Set<AbortController>();

  /** Tells the listener (progress lines, warnings); a listener's own failure is not the run's. */
  emit(event: CouncilEvent): void {
    try {
      this.onEvent?.(event);
    } catch {
      // A display that fails must not fail the deliberation.
    }
  }

  /** One call; its reply's text. A reply without text is the model's fault (ModelError). */
  async ask(request: CallRequest): Promise<string> {
    const answer = await this.query(request);
    this.record(answer);
    return answer.text;
  }

  /**
   * Calls made at the same time (the seats of one phase): all queries start at once; their
   * turns are recorded in the order given, whatever order the replies arrive in.
   */
  async askAll(requests: readonly CallRequest[]): Promise<string[]> {
    const answers = await Promise.all(requests.map((r) => this.query(r)));
    for (const a of answers) this.record(a);
    return answers.map((a) => a.text);
  }

  /**
   * One query, announced and timed. An empty reply is asked again once (models do sometimes
   * answer nothing); a second is a ModelError. Every error names the phase, loop and seat.
   */
  private async query(request: CallRequest): Promise<Answer> {
    const { site, llm } = request;
    const started = performance.now();
    const ms = () => performance.now() - started;
    this.emit({ type: "call_started", site, llm: llm.name });
    try {
      for (let attempt = 0; ; attempt++) {
        const response = await this.queryOnce(request);
        const text = response.content;
        if (typeof text === "string" && text.trim() !== "") {
          this.emit({ type: "call_answered", site, llm: llm.name, ms: ms() });
          return {
            text,
            request,
            metadata: response.metadata ?? {},
            usage: response.usage,
            ms: ms(),
          };
        }
        if (attempt >= 1)
          throw new ModelError("council_empty_reply", `${llm.name} answered without text twice`);
        this.emit({ type: "call_retry", site, llm: llm.name, reason: "empty reply" });
      }
    } catch (err) {
      const where = `${describe(site)} (${llm.name})`;
      if (err instanceof Error && !err.message.startsWith(where))
        err.message = `${where}: ${err.message}`;
      this.emit({ type: "call_failed", site, llm: llm.name, ms: ms(), error: errorMessage(err) });
      throw err;
    }
  }

  /** The LLM's reply; with a signal, an abort ends the wait even if the provider ignores it. */
  private queryOnce({ llm, messages }: CallRequest): Promise<LLMResponse> {
    const signal = this.signal;
    if (!signal) return llm.query(messages);
    const interrupted = () => new SystemError("council_interrupted", "interrupted");
    if (signal.aborted) return Promise.reject(interrupted());
    const own = new AbortController();
    this.running.add(own);
    return new Promise<LLMResponse>((resolve, reject) => {
      own.signal.addEventListener("abort", () => reject(interrupted()), { once: true });
      llm
        .query(messages, { signal: own.signal })
        .then(resolve, reject)
        .finally(() => this.running.delete(own));
    });
  }

  private record(a: Answer): void {
    this.calls++;
    addUsage(this.usage, a.usage);
    const cost = a.metadata["cost"];
    if (typeof cost === "number") this.costUsd += cost;
    if (!this.loom) return;
    const last = a.request.site.phase === "synthesis" || a.request.site.phase === "short_circuit";
    const turn: Turn = {
      id: newId("turn"),
      parent_id: this.parentId,
      cantrip_id: this.cantripId,
      entity_id: this.entityId,
      role: "turn",
      sequence: ++this.sequence,
      utterance: a.text,
      observation: "",
      gate_calls: [],
      metadata: {
        tokens_prompt: a.usage.promptTokens,
        tokens_completion: a.usage.completionTokens,
        tokens_cached: a.usage.cachedTokens,
        duration_ms: Math.round(a.ms),
        timestamp: isoNow(),
        llm: a.request.llm.name,
        ...a.metadata,
        council: { ...a.request.site },
      },
      reward: null,
      terminated: last,
      truncated: false,
      reason: last ? a.request.site.phase : null,
    };
    this.loom.append(turn);
    this.parentId = turn.id;
  }
}

export function describe(site: CallSite): string {
  const parts: string[] = [site.phase.replace("_", " ")];
  if (site.loop !== undefined) parts.push(`loop ${site.loop}`);
  if (site.seat !== undefined) parts.push(`seat ${site.seat}`);
  if (site.step !== undefined) parts.push(site.step);
  return parts.join(", ");
}
