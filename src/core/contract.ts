import { isJsonObject } from "./json.js";
/**
 * The LLM contract (spec §2.1): stateless, messages in, response out.
 * Everything provider-specific lives behind this interface.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** JSON-encoded arguments (LLM-4). */
  arguments: string;
  /**
   * The same arguments, already decoded, when the provider handed them over as an object
   * (scripted, Anthropic): the circle uses them instead of parsing `arguments` again.
   */
  input?: Record<string, unknown>;
}

/** Keeps a provider's decoded arguments on the call when they are an object (`ToolCall.input`). */
export function keepInput(call: ToolCall, value: unknown): ToolCall {
  if (isJsonObject(value)) call.input = value;
  return call;
}

export { isJsonObject } from "./json.js";

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      toolCalls?: ToolCall[];
      /** Opaque data the same provider needs back with this message (LLMResponse.providerData). */
      providerData?: Record<string, unknown>;
    }
  | { role: "tool"; toolCallId: string; content: string; isError?: boolean };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = "auto" | "required" | "none";

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export interface LLMResponse {
  content: string | null;
  toolCalls: ToolCall[] | null;
  usage: Usage;
  thinking?: string | null;
  /** Provider-only fields (LLM-6): never required by consumers. */
  metadata?: Record<string, unknown>;
  /**
   * Opaque data to send back with this reply when it is replayed as an assistant message
   * (e.g. Anthropic's signed thinking blocks, required with extended thinking + tool use).
   * Mediums copy it onto the assistant message; other providers ignore it.
   */
  providerData?: Record<string, unknown>;
  /**
   * Tool results a malformed provider message carried in its reply. Always invalid in a
   * response; kept so the engine can reject it with LLM-7's error instead of dropping it.
   */
  toolResults?: { toolCallId: string; content: string }[];
  /**
   * What this reply cost in USD: reported by the provider (OpenRouter) or priced from the price
   * table (src/llm/prices.ts). Absent: unknown — never a guessed 0.
   */
  costUsd?: number;
}

export interface QueryOptions {
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** Hyperparameters and provider-specific parameters passed through. */
  extra?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Streaming deltas; events observe, they never steer. */
  onDelta?: (delta: { type: "text" | "thinking"; text: string }) => void;
}

export interface LLM {
  /** `provider/model`, for the loom and progress lines. */
  readonly name: string;
  /** The provider and model as configured, when the LLM knows them (the loom records them). */
  readonly provider?: string;
  readonly model?: string | undefined;
  /**
   * True when `query` settles as soon as `options.signal` aborts (the built-in adapters do).
   * The loop races any other LLM's query against the cast's signal, so a ward or a cancel ends
   * the cast even when the LLM never answers; a flagged LLM saves the race's tick per turn.
   */
  readonly honoursSignal?: boolean;
  query(messages: readonly Message[], options?: QueryOptions): Promise<LLMResponse>;
  /**
   * An LLM of its own that goes on from this one's runtime state as it stands now (a scripted
   * model: its place in the script): what a cast's `nextCantrip` carries forward. Absent: the LLM
   * keeps no runtime state of its own (a provider's client), and the next cantrip shares it.
   */
  carry?(): LLM;
  /** The server its queries go to (OpenTelemetry's `server.address`/`server.port`), if any. */
  readonly server?: LLMServer | undefined;
}

/** Where a provider's queries go: its base URL's host and port. */
export interface LLMServer {
  address: string;
  port: number;
}

/** A base URL's host and port (the scheme's default port when it names none). */
export function serverOf(url: string): LLMServer | undefined {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === "http:" ? 80 : 443;
    return { address: u.hostname.replace(/^\[|\]$/g, ""), port };
  } catch {
    return undefined;
  }
}

/** `llm.carry()` when it has runtime state to carry forward; else the same LLM. */
export const carried = (llm: LLM): LLM => llm.carry?.() ?? llm;

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });

export function addUsage(into: Usage, add: Usage): void {
  into.promptTokens += add.promptTokens;
  into.completionTokens += add.completionTokens;
  into.cachedTokens += add.cachedTokens;
}
