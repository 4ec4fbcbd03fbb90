import type { GateCallRecord } from "./medium.js";
import type { LLMServer, Usage } from "./contract.js";
import type { LLMId } from "./loom-writer.js";

/**
 * What the loop reports as it runs (§7.5). Events observe; they never steer the loop:
 * a listener that throws is reported once and detached, the loop goes on.
 */
export type CantripEvent =
  | { type: "step_start"; entityId: string; sequence: number }
  | {
      type: "message_start";
      entityId: string;
      sequence: number;
      /** The LLM asked (a child's own, when it has one): what OpenTelemetry's chat span names. */
      llm?: LLMId;
      /** The server it asks, when it is one (OpenTelemetry's server.address, server.port). */
      server?: LLMServer;
    }
  | { type: "text"; entityId: string; text: string }
  | { type: "thinking"; entityId: string; text: string }
  | {
      type: "message_complete";
      entityId: string;
      sequence: number;
      content: string | null;
      /** Why the reply ended, as the provider said it (`finish_reason`, `stop_reason`), if it did. */
      finishReason?: string;
      /** The provider's id of the reply and the model that answered, when it said them. */
      responseId?: string;
      responseModel?: string;
      /**
       * The reply's tool calls, as the model wrote them (name and JSON arguments), when it made
       * some: what a code or bash turn is about to run, before it runs (the terminal UI shows
       * it). A listener that forwards events redacts them as every other string
       * (redactingListener).
       */
      toolCalls?: { name: string; arguments: string }[];
    }
  | { type: "usage"; entityId: string; usage: Usage }
  | {
      type: "tool_call";
      entityId: string;
      gate: string;
      arguments: string;
      /** The model's id of the call, when the gate answers one of its tool calls. */
      callId?: string;
    }
  | { type: "tool_result"; entityId: string; record: GateCallRecord }
  | {
      type: "step_complete";
      entityId: string;
      sequence: number;
      turnId: string;
      gates: string[];
      usage: Usage;
      durationMs: number;
      outcome: "continue" | "terminated" | "truncated";
      /** The turn's observation was an error (code that threw, a gate call that failed). */
      isError: boolean;
      /** When `isError`: the error's first line, at most `ERROR_LINE_CHARS` (turn-events.ts). */
      error?: string;
    }
  | {
      type: "final";
      entityId: string;
      result: unknown;
      terminated: boolean;
      truncated: boolean;
      reason: string;
    };

export type EventListener = (event: CantripEvent) => void;

export class EventBus {
  private listeners: EventListener[] = [];

  on(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  get active(): boolean {
    return this.listeners.length > 0;
  }

  emit(event: CantripEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.listeners = this.listeners.filter((l) => l !== listener);
        process.emitWarning(`event listener failed and was detached: ${(err as Error).message}`);
      }
    }
  }
}
