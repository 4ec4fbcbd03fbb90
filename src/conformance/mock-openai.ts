import { ConfigError } from "../core/errors.js";
import type { Redactor } from "../core/redact.js";
import type { LLM, ToolChoice, ToolDefinition } from "../core/contract.js";
import {
  startLoopbackProvider,
  type LoopbackReply,
  type LoopbackServer,
} from "../llm/loopback/server.js";
import { fromOpenAIMessages } from "../llm/providers/openai/convert-to-openai.js";
import type { OpenAIMessage, OpenAITool } from "../llm/providers/openai/wire.js";
import type { RecordedQuery } from "../llm/providers/scripted.js";
import { providerRegistry } from "../llm/registry.js";
import type { RetrySpec } from "../llm/retry.js";
import { wireReplyOf } from "./mock-openai-replies.js";

/** The flavours a mock can stand for: they differ in request details (max_tokens, models, …). */
const PROFILES = new Set(["openai", "openrouter", "google", "local"]);

/** A key the mock's requests carry; redacted like any provider key (PROD-8 cases look for it). */
export const MOCK_API_KEY = "sk-mock-0123456789abcdefghijklmnop";

/**
 * `provider: mock_openai` of a setup: the REAL OpenAI-compatible adapter (SDK, converters,
 * retry, LLM-5) talking to a loopback server that answers with `raw_response` (every request),
 * `raw_responses` (in order; each `{ status?, headers?, body }`), or the suite's scripted
 * `responses` written as wire bodies (mock-openai-replies.ts). Nothing is normalised
 * here: what the case sees is what the adapter made of the wire body (LLM-6).
 */
export class MockOpenAI {
  private server: LoopbackServer | undefined;
  private readonly replies: LoopbackReply[];
  private readonly repeat: boolean;

  constructor(
    private readonly key: string,
    private readonly spec: Record<string, unknown>,
  ) {
    const one = spec["raw_response"];
    const many = spec["raw_responses"];
    const scripted = spec["responses"];
    if ([one, many, scripted].filter((x) => x !== undefined).length !== 1) {
      throw new ConfigError(
        "unsupported_setup",
        `${key}: provider mock_openai needs one of raw_response, raw_responses or responses`,
      );
    }
    if (scripted !== undefined && !Array.isArray(scripted))
      throw new ConfigError("unsupported_setup", `${key}.responses must be a list of replies`);
    this.repeat = one !== undefined;
    this.replies =
      one !== undefined
        ? [{ body: one }]
        : scripted !== undefined
          ? (scripted as unknown[]).map((r, i) => wireReplyOf(key, r, i, spec["usage"]))
          : (many as unknown[]).map((r, i) => replyOf(key, r, i));
    const profile = spec["profile"] ?? "openai";
    if (typeof profile !== "string" || !PROFILES.has(profile)) {
      throw new ConfigError(
        "unsupported_setup",
        `${key}.profile must be one of ${[...PROFILES].join(", ")}`,
      );
    }
  }

  /** Every request the adapter sent, read back from the wire in the suite's terms. */
  get invocations(): RecordedQuery[] {
    return (this.server?.requests ?? []).map((r) => {
      const {
        messages,
        tools,
        tool_choice,
        model: _model,
        stream: _s,
        stream_options: _o,
        ...extra
      } = r.body as {
        messages: OpenAIMessage[];
        tools?: OpenAITool[];
        tool_choice?: ToolChoice;
        [key: string]: unknown;
      };
      return {
        messages: fromOpenAIMessages(messages),
        tools: (tools ?? []).map((t): ToolDefinition => ({
          name: t.function.name,
          description: t.function.description,
          parameters: t.function.parameters,
        })),
        toolChoice: tool_choice,
        extra,
      };
    });
  }

  /** Starts the loopback server and builds the adapter through the provider registry. */
  async llm(options: {
    redactor: Redactor;
    retry?: RetrySpec | undefined;
    baseDir: string;
  }): Promise<LLM> {
    this.server ??= await startLoopbackProvider(this.replies, { repeatLast: this.repeat });
    const profile = (this.spec["profile"] as string | undefined) ?? "openai";
    return providerRegistry[profile]!.create(
      {
        provider: profile,
        model: typeof this.spec["model"] === "string" ? this.spec["model"] : "mock-model",
        baseUrl: `${this.server.url}/v1`,
        apiKey: MOCK_API_KEY,
        ...(options.retry ? { retry: options.retry } : {}),
      },
      {
        redactor: options.redactor,
        env: {},
        baseDir: options.baseDir,
        // The policy decides every delay; the suite does not wait them out (tests/llm check delays).
        sleep: () => Promise.resolve(),
        warn: () => undefined, // warnings stay in the turn's metadata, where cases can check them
      },
    );
  }

  get queries(): number {
    return this.server?.requests.length ?? 0;
  }

  /** raw_responses never served (a fixed raw_response is never "unused"). */
  unused(): number {
    return this.server ? this.server.pending() : this.repeat ? 0 : this.replies.length;
  }

  close(): void {
    void this.server?.close();
  }

  get name(): string {
    return this.key;
  }
}

function replyOf(key: string, raw: unknown, i: number): LoopbackReply {
  if (raw === null || typeof raw !== "object" || !("body" in raw)) {
    throw new ConfigError(
      "unsupported_setup",
      `${key}.raw_responses[${i}] is { status?, headers?, body }`,
    );
  }
  const r = raw as { status?: number; headers?: Record<string, string>; body: unknown };
  return {
    body: r.body,
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(r.headers ? { headers: r.headers } : {}),
  };
}
