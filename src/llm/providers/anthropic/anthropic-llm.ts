import Anthropic from "@anthropic-ai/sdk";
import type { LLM, LLMResponse, Message, QueryOptions } from "../../../core/contract.js";
import type { LLMSpec, ProviderContext } from "../../spec.js";
import { assertToolPairing } from "../../../core/validate-response.js";
import { PROFILES, requireModel, resolveApiKey, resolveBaseURL } from "../profiles.js";
import { replayRecord } from "../replay-record.js";
import { pooledFetch } from "../pooled-fetch.js";
import { ErrorBodies, fromSDKError } from "../sdk-errors.js";
import { ProviderWarnings } from "../warnings.js";
import { AnthropicStreamAccumulator } from "./anthropic-stream.js";
import { buildAnthropicRequest } from "./convert-to-anthropic.js";
import { fromAnthropicMessage } from "./map-anthropic-response.js";
import type { AnthropicStreamEvent } from "./wire.js";

export interface AnthropicOptions {
  model: string;
  baseURL: string;
  apiKey: string;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  cache?: boolean | undefined;
  fetch?: typeof fetch | undefined;
  redact: (text: string) => string;
  warn?: ((message: string) => void) | undefined;
}

/** The network layer for the Anthropic Messages API. Converters do the work; this sends and reads. */
export class AnthropicLLM implements LLM {
  readonly name: string;
  /** The SDK request takes the signal: a stopped cast ends its query. */
  readonly honoursSignal = true;
  // ES private fields (#): util.inspect, JSON.stringify and Object.values never reach the API
  // key they hold, nor the SDK client holding it (PROD-8).
  readonly #client: Anthropic;
  private readonly warnings: ProviderWarnings;
  private readonly errorBodies = new ErrorBodies();

  readonly #options: AnthropicOptions;

  constructor(options: AnthropicOptions) {
    this.#options = options;
    this.name = `anthropic/${options.model}`;
    this.warnings = new ProviderWarnings(options.warn);
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      authToken: null,
      baseURL: options.baseURL,
      maxRetries: 0, // one retry policy: ours (src/llm/retry.ts)
      // An explicit timeout also stops the SDK refusing long non-streaming requests.
      timeout: options.timeoutMs ?? 600_000,
      logLevel: "off",
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
      fetch: this.errorBodies.fetch(options.fetch ?? pooledFetch()),
    });
  }

  async query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    assertToolPairing(messages); // LLM-7
    const { body, warnings } = buildAnthropicRequest(messages, options, {
      model: this.#options.model,
      cache: this.#options.cache !== false,
    });
    let message: unknown;
    try {
      const requestOptions = options.signal ? { signal: options.signal } : {};
      if (options.onDelta) {
        const stream = await this.#client.messages.create(
          { ...body, stream: true } as unknown as Anthropic.MessageCreateParamsStreaming,
          requestOptions,
        );
        const acc = new AnthropicStreamAccumulator();
        for await (const event of stream) {
          for (const delta of acc.push(event as unknown as AnthropicStreamEvent))
            options.onDelta(delta);
        }
        options.signal?.throwIfAborted();
        message = acc.finish();
      } else {
        message = await this.#client.messages.create(
          body as unknown as Anthropic.MessageCreateParamsNonStreaming,
          requestOptions,
        );
      }
    } catch (err) {
      if (options.signal?.aborted) throw err; // a cancel is not a provider failure
      throw fromSDKError(err, "anthropic", this.#options.redact, this.errorBodies);
    }
    const mapped = fromAnthropicMessage(message);
    const response = mapped.response;
    response.metadata = {
      provider: "anthropic",
      ...response.metadata,
      ...replayRecord(response),
      ...this.warnings.report([...warnings, ...mapped.warnings]),
    };
    return response;
  }
}

export function createAnthropic(spec: LLMSpec, ctx: ProviderContext): AnthropicLLM {
  const profile = PROFILES.anthropic;
  return new AnthropicLLM({
    model: requireModel(spec, "claude-sonnet-4-5"),
    baseURL: resolveBaseURL(spec, profile, ctx),
    apiKey: resolveApiKey(spec, profile, ctx)!,
    headers: spec.headers,
    timeoutMs: typeof spec.timeoutMs === "number" ? spec.timeoutMs : undefined,
    cache: typeof spec.promptCaching === "boolean" ? spec.promptCaching : undefined,
    fetch: ctx.fetch,
    redact: (t) => ctx.redactor.redact(t),
    warn: ctx.warn,
  });
}
