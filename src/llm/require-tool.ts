import { ModelError } from "../core/errors.js";
import {
  carried,
  addUsage,
  emptyUsage,
  type LLM,
  type LLMServer,
  type LLMResponse,
  type Message,
  type QueryOptions,
} from "../core/contract.js";

/** What the model is told when it answered without a tool although one was required. */
export const TOOL_REQUIRED_REMINDER =
  "Your reply must call one of the available tools; a reply without a tool call cannot be accepted. Call a tool now.";

export const DEFAULT_REPROMPTS = 2;

/**
 * LLM-5: with tool_choice "required" the response MUST contain a tool call. Providers that can
 * force tool use are asked to; where they cannot (local servers that ignore tool_choice,
 * Anthropic with extended thinking) or do not, the query is re-prompted with a reminder. The
 * re-prompts belong to one query: one turn, usage summed, `reprompts` in the metadata. The
 * reminder is sent to the provider only; the entity's context does not keep it.
 */
export class RequiredToolChoiceLLM implements LLM {
  readonly name: string;
  readonly honoursSignal: boolean | undefined;
  readonly server: LLMServer | undefined;

  constructor(
    readonly inner: LLM,
    private readonly maxReprompts = DEFAULT_REPROMPTS,
  ) {
    this.name = inner.name;
    this.honoursSignal = inner.honoursSignal;
    this.server = inner.server;
  }

  carry(): LLM {
    const inner = carried(this.inner);
    return inner === this.inner ? this : new RequiredToolChoiceLLM(inner, this.maxReprompts);
  }

  async query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    if (options.toolChoice !== "required" || !options.tools?.length)
      return this.inner.query(messages, options);
    const usage = emptyUsage();
    let context: readonly Message[] = messages;
    for (let reprompt = 0; ; reprompt++) {
      const response = await this.inner.query(context, options);
      addUsage(usage, response.usage);
      if (response.toolCalls?.length) {
        return reprompt === 0
          ? response
          : { ...response, usage, metadata: { ...response.metadata, reprompts: reprompt } };
      }
      if (reprompt >= this.maxReprompts) {
        throw new ModelError(
          "tool_choice_required_unmet",
          `llm returned no tool call although tool_choice is required (LLM-5), after ${reprompt} re-prompt${reprompt === 1 ? "" : "s"}`,
        );
      }
      context = [
        ...messages,
        ...(response.content ? [{ role: "assistant" as const, content: response.content }] : []),
        { role: "user", content: TOOL_REQUIRED_REMINDER },
      ];
    }
  }
}
