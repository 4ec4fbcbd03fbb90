import OpenAI from "openai";
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
import { buildOpenAIRequest, type OpenAIFlavor } from "./convert-to-openai.js";
import { fromOpenAICompletion } from "./map-openai-response.js";
import { OpenAIStreamAccumulator } from "./openai-stream.js";
import { timerDelay } from "../../../core/clock.js";

export interface OpenAICompatibleOptions {
  flavor: OpenAIFlavor;
  model: string;
  baseURL: string;
  apiKey: string;
  models?: readonly string[] | undefined;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  fetch?: typeof fetch | undefined;
  redact: (text: string) => string;
  warn?: ((message: string) => void) | undefined;
}

/**
 * The network layer for every OpenAI-compatible service: OpenAI, OpenRouter, Gemini's
 * compatible endpoint and local servers. Converters do the work; this sends and reads.
 */
export class OpenAICompatibleLLM implements LLM {
  readonly name: string;
  /** The SDK request takes the signal: a stopped cast ends its query. */
  readonly honoursSignal = true;
  /** Its base URL's host and port (OpenTelemetry's server.address, server.port). */
  readonly server: LLMServer | undefined;
  // ES private fields (#): util.inspect, JSON.stringify and Object.values never reach the API
  // key they hold, nor the SDK client holding it (PROD-8).
  readonly #client: OpenAI;
  private readonly warnings: ProviderWarnings;
  private readonly errorBodies = new ErrorBodies();

  readonly #options: OpenAICompatibleOptions;
  /** The direct path for a plain request (../direct-json.ts): made on the first one, null when
   * the spell gave its own fetch or the SDK's request is not plain. */
  #direct: DirectJSON | null | undefined;

  constructor(options: OpenAICompatibleOptions) {
    this.#options = options;
    this.name = `${options.flavor}/${options.model}`;
    this.server = serverOf(options.baseURL);
    this.warnings = new ProviderWarnings(options.warn);
    this.#client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: 0, // one retry policy: ours (src/llm/retry.ts)
      timeout: timerDelay(options.timeoutMs ?? 600_000),
      logLevel: "off", // the SDK would print bodies; we report errors ourselves, redacted
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
      fetch: this.errorBodies.fetch(options.fetch ?? pooledFetch()),
      organization: null,
      project: null,
    });
  }

  async query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    assertToolPairing(messages); // LLM-7
    const { flavor, model, models } = this.#options;
    const provider = flavor;
    const { body, warnings } = buildOpenAIRequest(messages, options, { flavor, model, models });
    let completion: unknown;
    try {
      const requestOptions = options.signal ? { signal: options.signal } : {};
      if (options.onDelta) {
        const stream = await this.#client.chat.completions.create(
          {
            ...body,
            stream: true,
            stream_options: { include_usage: true },
          } as unknown as OpenAI.ChatCompletionCreateParamsStreaming,
          requestOptions,
        );
        const acc = new OpenAIStreamAccumulator(provider, this.#options.redact);
        for await (const chunk of stream) {
          for (const delta of acc.push(chunk)) options.onDelta(delta);
        }
        options.signal?.throwIfAborted(); // the SDK ends an aborted stream quietly
        completion = acc.finish();
      } else {
        const direct = this.#direct === undefined ? await this.#captureDirect() : this.#direct;
        completion = direct
          ? await direct.post(body, options.signal)
          : await this.#client.chat.completions.create(
              body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
              requestOptions,
            );
      }
    } catch (err) {
      // A cancel is not a provider failure; what was thrown is kept, its text redacted all the same.
      if (options.signal?.aborted) throw redactedError(err, this.#options.redact);
      throw fromSDKError(err, provider, this.#options.redact, this.errorBodies);
    }
    // A text answer is quoted in the error it makes: redacted first, as a failure's body is (a
    // server may echo the key), and before the quote cuts it short.
    const mapped = fromOpenAICompletion(
      typeof completion === "string" ? this.#options.redact(completion) : completion,
      provider,
    );
    const response = mapped.response;
    response.metadata = {
      provider,
      ...response.metadata,
      ...replayRecord(response),
      ...this.warnings.report([...warnings, ...mapped.warnings]),
    };
    return response;
  }

  /**
   * What `chat.completions.create` sends for a non-streamed request, built by the SDK itself once
   * (its headers — user-agent, x-stainless-*, retry count, authorization, the spell's headers —
   * its URL and timeout), for the direct path. Not with a fetch of the spell's own.
   */
  async #captureDirect(): Promise<DirectJSON | null> {
    let direct: DirectJSON | null = null;
    if (!this.#options.fetch) {
      const probe = {};
      const built = (await this.#client
        .buildRequest({
          method: "post",
          path: "/chat/completions",
          body: probe,
          stream: false,
          __security: { bearerAuth: true },
        })
        .catch(() => undefined)) as BuiltRequest | undefined;
      const target = built && capturedFrom(built, probe);
      if (target) direct = new DirectJSON(target, OpenAI, this.errorBodies, "x-request-id");
    }
    this.#direct = direct;
    return direct;
  }
}

/** Builds the adapter for a spell's `llm:` block (called lazily by the registry). */
export function createOpenAICompatible(
  flavor: OpenAIFlavor,
  spec: LLMSpec,
  ctx: ProviderContext,
): OpenAICompatibleLLM {
  const profile = PROFILES[flavor];
  let model = requireModel(
    spec,
    flavor === "local"
      ? "qwen3"
      : flavor === "google"
        ? "gemini-2.5-flash"
        : flavor === "openrouter"
          ? "openrouter/auto"
          : "gpt-4.1",
  );
  if (flavor === "openrouter" && model === "auto") model = "openrouter/auto";
  const apiKey = resolveApiKey(spec, profile, ctx) ?? "not-needed"; // local servers ignore it; the SDK wants one
  const headers: Record<string, string> = { ...(spec.headers ?? {}) };
  if (flavor === "openrouter") {
    // OpenRouter's optional attribution (https://openrouter.ai/docs/api-reference/overview#headers).
    if (typeof spec.appUrl === "string") headers["HTTP-Referer"] = spec.appUrl;
    if (typeof spec.appName === "string") headers["X-Title"] = spec.appName;
  }
  const models = Array.isArray(spec.models) ? spec.models : undefined;
  if (models && flavor !== "openrouter") {
    new ProviderWarnings(ctx.warn).report([
      `llm.models (a fallback list) is an OpenRouter feature; the ${flavor} provider ignores it`,
    ]);
  }
  return new OpenAICompatibleLLM({
    flavor,
    model,
    baseURL: resolveBaseURL(spec, profile, ctx),
    apiKey,
    models,
    headers: Object.keys(headers).length ? headers : undefined,
    timeoutMs: typeof spec.timeoutMs === "number" ? spec.timeoutMs : undefined,
    fetch: ctx.fetch,
    redact: (t) => ctx.redactor.redact(t),
    warn: ctx.warn,
  });
}
