import { ConfigError, SystemError } from "../../core/errors.js";
import {
  isJsonObject,
  keepInput,
  type LLM,
  type LLMResponse,
  type Message,
  type QueryOptions,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
  type Usage,
} from "../../core/contract.js";
import { replayRecord } from "./replay-record.js";

/** One scripted reply, in the vocabulary of tests.yaml and a spell's `tests:` (snake_case, as written in YAML). */
export interface ScriptedResponse {
  content?: string | null;
  tool_calls?: { gate: string; args?: unknown; id?: string }[] | null;
  code?: string;
  /** A bash-medium command: the same as `code:`. */
  command?: string;
  error?: { status?: number; message?: string };
  tool_result?: { tool_call_id: string; content: string };
  thinking?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number };
}

export interface ScriptedLLMOptions {
  responses: ScriptedResponse[];
  usage?: ScriptedResponse["usage"];
  recordInputs?: boolean;
  /** After the last reply, start again from the first (a demonstration's script). Default false. */
  cycle?: boolean;
  name?: string;
  /** The tool a `code:` reply calls (the code medium's single tool). */
  codeTool?: string;
}

export interface RecordedQuery {
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice | undefined;
  extra: Record<string, unknown> | undefined;
}

/**
 * A model whose replies are listed in advance. It fails on a query past the end of its script
 * (unless it cycles: then it starts again from the first), and `unused()` tells how many
 * replies were never asked for.
 */
export class ScriptedLLM implements LLM {
  readonly name: string;
  /** Its query answers at once (a script or a recording), so it never holds a stopped cast. */
  readonly honoursSignal = true;
  readonly invocations: RecordedQuery[] = [];
  private next = 0;
  private calls = 0;
  /**
   * Each reply's tool-call arguments as a gate receives them: decoded from their JSON when the
   * script is read (again each time a cycling script starts over), into objects of this LLM's
   * own — a gate that changes its arguments changes no script, and it sees exactly what the
   * JSON text says (no NaN where the text says null). The JSON text is kept with them: it is the
   * call's `arguments`, so a query does not encode them again.
   */
  private decoded: (DecodedArgs | undefined)[][];

  constructor(private readonly options: ScriptedLLMOptions) {
    this.name = options.name ?? "scripted";
    this.decoded = decodeArgs(options.responses);
  }

  get queries(): number {
    return this.next;
  }

  /**
   * Goes on as if `replies` replies had been given (a resumed cast's recorded turns took them):
   * the next query gets the one after; a cycling script wraps around.
   */
  skip(replies: number): void {
    const { length } = this.options.responses;
    this.next = this.options.cycle && length > 0 ? replies % length : replies;
  }

  /** A script of its own at this one's place (nextCantrip): later queries of either move only it. */
  carry(): ScriptedLLM {
    const next = new ScriptedLLM(this.options);
    next.next = this.next;
    next.calls = this.calls;
    return next;
  }

  unused(): number {
    return this.options.responses.length - this.next;
  }

  query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    if (this.options.recordInputs) {
      this.invocations.push({
        messages: messages.map((m) => ({ ...m })),
        tools: options.tools ?? [],
        toolChoice: options.toolChoice,
        extra: options.extra,
      });
    }
    const { responses, cycle } = this.options;
    if (cycle && responses.length > 0 && this.next >= responses.length) {
      this.next = 0;
      this.decoded = decodeArgs(responses);
    }
    const script = responses[this.next];
    if (script === undefined) return Promise.reject(this.exhausted());
    this.next++;
    if (script.error) {
      const status = script.error.status ?? 500;
      return Promise.reject(
        new SystemError("provider_error", script.error.message ?? `scripted error ${status}`, {
          status,
        }),
      );
    }
    const response = this.toResponse(script, this.decoded[this.next - 1] ?? [], options);
    if (options.onDelta) {
      if (response.thinking) options.onDelta({ type: "thinking", text: response.thinking });
      if (response.content) options.onDelta({ type: "text", text: response.content });
    }
    return Promise.resolve(response);
  }

  /** Out of replies: which query, and what to write so that there are enough. */
  private exhausted(): ConfigError {
    const name = JSON.stringify(this.name);
    const shapes = "content:, tool_calls: [{ gate, args }], code: or command:";
    const message =
      this.options.responses.length === 0
        ? `scripted llm ${name} lists no responses: write its replies under llm.responses (${shapes}), or cast with a real provider, e.g. --llm anthropic/claude-sonnet-4-5`
        : `scripted llm ${name} has no response left for query ${this.next + 1} (it lists ${this.options.responses.length}): add replies under llm.responses, or cycle: true to start again after the last`;
    return new ConfigError("script_exhausted", message);
  }

  private toResponse(
    script: ScriptedResponse,
    decoded: readonly (DecodedArgs | undefined)[],
    options: QueryOptions,
  ): LLMResponse {
    const toolCalls: ToolCall[] = [];
    const calls = script.tool_calls ?? [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const id = call.id ?? `call_${++this.calls}`;
      // Arguments that are no object, or a reply added to the script after it was read: encoded now.
      const args = decoded[i] ?? { input: undefined, text: JSON.stringify(call.args ?? {}) };
      // Built in its final shape (`keepInput` would add `input` to a finished object).
      toolCalls.push(
        args.input
          ? { id, name: call.gate, arguments: args.text, input: args.input }
          : { id, name: call.gate, arguments: args.text },
      );
    }
    const source = script.code ?? script.command;
    if (source !== undefined) {
      // A medium with one required tool (code: js, bash: bash) gets the reply as that tool's call.
      const only = options.toolChoice === "required" && options.tools?.length === 1;
      const name = this.options.codeTool ?? (only ? options.tools![0]!.name : "js");
      const args = name === "bash" ? { command: source } : { code: source };
      const id = `call_${++this.calls}`;
      toolCalls.push(keepInput({ id, name, arguments: JSON.stringify(args) }, args));
    }
    const content = script.content ?? null;
    const thinking = script.thinking ?? null;
    const replied = toolCalls.length > 0 ? toolCalls : null;
    const response: LLMResponse = {
      content,
      toolCalls: replied,
      usage: toUsage(script.usage ?? this.options.usage),
      thinking,
      // Recorded with the turn, as a real provider's reply is, so any scripted run replays exactly.
      metadata: replayRecord({ content, toolCalls: replied, thinking }),
    };
    if (script.tool_result) {
      response.toolResults = [
        { toolCallId: script.tool_result.tool_call_id, content: script.tool_result.content },
      ];
    }
    return response;
  }
}

/** A scripted call's object arguments: decoded (an object of its own), and their JSON text. */
interface DecodedArgs {
  input: Record<string, unknown> | undefined;
  text: string;
}

/**
 * Each reply's tool-call arguments as objects of their own, decoded from their JSON text; the
 * text is kept as the call's `arguments` (it is what encoding the decoded object gives again).
 */
function decodeArgs(responses: readonly ScriptedResponse[]): (DecodedArgs | undefined)[][] {
  return responses.map((r) =>
    (r?.tool_calls ?? []).map((c) => {
      const args: unknown = c?.args ?? {};
      if (!isJsonObject(args)) return undefined; // not an object: encoded as the query asks
      const text = JSON.stringify(args);
      return { input: JSON.parse(text) as Record<string, unknown>, text };
    }),
  );
}

function toUsage(u: ScriptedResponse["usage"]): Usage {
  return {
    promptTokens: u?.prompt_tokens ?? 0,
    completionTokens: u?.completion_tokens ?? 0,
    cachedTokens: u?.cached_tokens ?? 0,
  };
}
