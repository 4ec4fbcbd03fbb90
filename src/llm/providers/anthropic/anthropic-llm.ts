import Anthropic from "@anthropic-ai/sdk";
import {
  serverOf,
  type LLM,
  type LLMResponse,
  type LLMServer,
  type Message,
  type QueryOptions,
} from "../../../core/contract.js";
import type { LLMSpec, ProviderContext } from "../../spec.js";
import { assertToolPairing } from "../../../core/validate-response.js";
import { PROFILES, requireModel, resolveApiKey, resolveBaseURL } from "../profiles.js";
import { replayRecord } from "../replay-record.js";
import { capturedFrom, DirectJSON, type BuiltRequest } from "../direct-json.js";
import { pooledFetch } from "../pooled-fetch.js";
import { ErrorBodies, fromSDKError } from "../sdk-errors.js";
import { redactedError } from "../redact-error.js";
import { ProviderWarnings } from "../warnings.js";
import { AnthropicStreamAccumulator } from "./anthropic-stream.js";
import { buildAnthropicRequest } from "./convert-to-anthropic.js";
import { fromAnthropicMessage } from "./map-anthropic-response.js";
import type { AnthropicStreamEvent } from "./wire.js";
import { timerDelay } from "../../../core/clock.js";

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
  /** Its base URL's host and port (OpenTelemetry's server.address, server.port). */
  readonly server: LLMServer | undefined;
  // ES private fields (#): util.inspect, JSON.stringify and Object.values never reach the API
  // key they hold, nor the SDK client holding it (PROD-8).
  readonly #client: Anthropic;
  private readonly warnings: ProviderWarnings;
  private readonly errorBodies = new ErrorBodies();

  readonly #options: AnthropicOptions;
  /** The direct path for a plain request (../direct-json.ts): made on the first one, null when
   * the spell gave its own fetch, the SDK's request is not plain, or the SDK deprecates the model. */
  #direct: DirectJSON | null | undefined;

  constructor(options: AnthropicOptions) {
    this.#options = options;
    this.name = `anthropic/${options.model}`;
    this.server = serverOf(options.baseURL);
    this.warnings = new ProviderWarnings(options.warn);
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      authToken: null,
      baseURL: options.baseURL,
      maxRetries: 0, // one retry policy: ours (src/llm/retry.ts)
      // An explicit timeout also stops the SDK refusing long non-streaming requests.
      timeout: timerDelay(options.timeoutMs ?? 600_000),
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
        const direct = this.#direct === undefined ? await this.#captureDirect() : this.#direct;
        message = direct
          ? await direct.post(body, options.signal)
          : await this.#client.messages.create(
              body as unknown as Anthropic.MessageCreateParamsNonStreaming,
              requestOptions,
            );
      }
    } catch (err) {
      // A cancel is not a provider failure; what was thrown is kept, its text redacted all the same.
      if (options.signal?.aborted) throw redactedError(err, this.#options.redact);
      throw fromSDKError(err, "anthropic", this.#options.redact, this.errorBodies);
    }
    // A text answer is quoted in the error it makes: redacted first, as a failure's body is (a
    // server may echo the key), and before the quote cuts it short.
    const mapped = fromAnthropicMessage(
      typeof message === "string" ? this.#options.redact(message) : message,
    );
    const response = mapped.response;
    response.metadata = {
      provider: "anthropic",
      ...response.metadata,
      ...replayRecord(response),
      ...this.warnings.report([...warnings, ...mapped.warnings]),
    };
    return response;
  }

  /**
   * What `messages.create` sends for a non-streamed request, built by the SDK itself once (its
   * headers — user-agent, x-stainless-*, retry count and timeout, anthropic-version, x-api-key,
   * the spell's headers — its URL and timeout), for the direct path. `messages.create` passes the
   * client's timeout as the request's (so x-stainless-timeout is sent), and warns on stderr at
   * every request for a model the SDK deprecates: such a model stays on the SDK's path.
   */
  async #captureDirect(): Promise<DirectJSON | null> {
    let direct: DirectJSON | null = null;
    if (!this.#options.fetch && !(await this.#deprecated())) {
      const probe = {};
      const built = (await this.#client
        .buildRequest({
          method: "post",
          path: "/v1/messages",
          body: probe,
          timeout: timerDelay(this.#options.timeoutMs ?? 600_000),
          stream: false,
        })
        .catch(() => undefined)) as BuiltRequest | undefined;
      const target = built && capturedFrom(built, probe);
      if (target) direct = new DirectJSON(target, Anthropic, this.errorBodies, "request-id");
    }
    this.#direct = direct;
    return direct;
  }

  /**
   * Does `messages.create` warn about this model? Asked of the SDK itself (its list is not
   * exported): a create with an aborted signal runs no request, and the warning, if any, is
   * written before it returns — console.warn is swapped for that synchronous call only.
   */
  async #deprecated(): Promise<boolean> {
    let warned = false;
    const warn = console.warn;
    let call: Promise<unknown> | undefined;
    console.warn = () => {
      warned = true;
    };
    try {
      call = this.#client.messages.create(
        { model: this.#options.model, max_tokens: 1, messages: [] },
        { signal: AbortSignal.abort() },
      );
    } catch {
      warned = true; // not as expected: keep the SDK's path
    } finally {
      console.warn = warn;
    }
    await call?.catch(() => undefined);
    return warned;
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
