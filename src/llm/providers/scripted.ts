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
import { castPlaces, type CastPlaces } from "../../core/cast-places.js";
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

/** What a scripted model and the models carried from it (`carry`) share. */
interface ScriptShared {
  invocations: RecordedQuery[];
  /** Queries answered, by any of them, in any cast. */
  asked: number;
  /** The furthest place any of them reached (what `unused` counts from). */
  furthest: number;
  /**
   * The script as read (`argTexts`, `ends`) and how many replies it had then: a model carried
   * at the end of every cast (nextCantrip) reads it again only when replies were added since.
   */
  read?: { replies: number; argTexts: (string | undefined)[][]; ends: boolean[] };
}

/**
 * A model whose replies are listed in advance. It fails on a query past the end of its script
 * (unless it cycles: then it starts again from the first), and `unused()` tells how many
 * replies were never asked for.
 *
 * Where it stands: inside a cast, the cast's own place (core/cast-places.ts): the cast starts
 * where the model stands, or — when the cast has a seat (the n-th cast of an eval or a
 * `--repeat`) — at the n-th cast's part of the script counted from there, and its turns go on
 * from it; the model itself does not move, so the same cast gets the same replies in any process.
 * A cast's part of the script ends at a reply that ends a cast (`endsCast`). Outside a cast (a
 * summoned entity's sends), queries go on in the model itself, from where the last one stopped.
 */
export class ScriptedLLM implements LLM {
  readonly name: string;
  /** Its query answers at once (a script or a recording), so it never holds a stopped cast. */
  readonly honoursSignal = true;
  readonly invocations: RecordedQuery[];
  private next = 0;
  private calls = 0;
  private readonly shared: ScriptShared;
  /**
   * Each reply's tool-call arguments as JSON text, encoded when the script is read; each query
   * decodes them into objects of its own (a gate that changes its arguments changes no script
   * and no other cast's reply), exactly as the JSON text says (no NaN where the text says null).
   * The text is the call's `arguments`, so a query does not encode them again.
   */
  private readonly argTexts: (string | undefined)[][];
  /** Whether each reply ends a cast's part of the script. */
  private readonly ends: boolean[];

  constructor(
    private readonly options: ScriptedLLMOptions,
    shared?: ScriptShared,
  ) {
    this.name = options.name ?? "scripted";
    this.shared = shared ?? { invocations: [], asked: 0, furthest: 0 };
    const { responses } = options;
    let read = this.shared.read;
    if (read?.replies !== responses.length) {
      read = {
        replies: responses.length,
        argTexts: encodeArgs(responses),
        ends: responses.map(endsCast),
      };
      this.shared.read = read;
    }
    this.argTexts = read.argTexts;
    this.ends = read.ends;
    this.invocations = this.shared.invocations;
  }

  /** Queries answered so far, by this model and those carried from it, in any cast. */
  get queries(): number {
    return this.shared.asked;
  }

  /**
   * Goes on as if `replies` replies had been given (a resumed cast's recorded turns took them):
   * the next query gets the one after; a cycling script wraps around.
   */
  skip(replies: number): void {
    const { length } = this.options.responses;
    this.next = this.options.cycle && length > 0 ? replies % length : replies;
  }

  /**
   * A script of its own at this one's place (nextCantrip) — inside a cast, the cast's place:
   * later queries of either move only it. It shares the record of queries (`invocations`,
   * `unused`) with this one.
   */
  carry(): ScriptedLLM {
    const next = new ScriptedLLM(this.options, this.shared);
    next.next = this.placeIn(castPlaces.getStore());
    next.calls = this.calls;
    return next;
  }

  unused(): number {
    return Math.max(0, this.options.responses.length - this.shared.furthest);
  }

  /** The next reply's place: the cast's (its start when it has not asked yet), else the model's. */
  private placeIn(scope: CastPlaces | undefined): number {
    if (!scope) return this.next;
    return scope.places.get(this) ?? this.startOf(scope.seat);
  }

  /**
   * Where the seat-th cast's part of the script starts, counted from where this model stands:
   * past `seat` replies that end a cast. A script with no such reply is one cast's part (every
   * seat starts at the same place when it cycles; past its end when it does not).
   */
  private startOf(seat: number | undefined): number {
    const n = this.options.responses.length;
    let at = this.next;
    if (!seat || n === 0) return at;
    const { cycle } = this.options;
    if (!this.ends.includes(true)) return cycle ? at : n;
    for (let s = 0; s < seat; s++) {
      do {
        if (!cycle && at >= n) return n;
        at++;
      } while (!this.ends[(at - 1) % n]);
    }
    return cycle ? at % n : at;
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
    const scope = castPlaces.getStore();
    let at = this.placeIn(scope);
    if (cycle && responses.length > 0) at %= responses.length;
    const script = responses[at];
    if (script === undefined) return Promise.reject(this.exhausted(at));
    if (scope) scope.places.set(this, at + 1);
    else this.next = at + 1;
    this.shared.asked++;
    this.shared.furthest = Math.max(this.shared.furthest, at + 1);
    if (script.error) {
      const status = script.error.status ?? 500;
      return Promise.reject(
        new SystemError("provider_error", script.error.message ?? `scripted error ${status}`, {
          status,
        }),
      );
    }
    const response = this.toResponse(script, this.argTexts[at] ?? [], options);
    if (options.onDelta) {
      if (response.thinking) options.onDelta({ type: "thinking", text: response.thinking });
      if (response.content) options.onDelta({ type: "text", text: response.content });
    }
    return Promise.resolve(response);
  }

  /** Out of replies: which query, and what to write so that there are enough. */
  private exhausted(at: number): ConfigError {
    const name = JSON.stringify(this.name);
    const shapes = "content:, tool_calls: [{ gate, args }], code: or command:";
    const message =
      this.options.responses.length === 0
        ? `scripted llm ${name} lists no responses: write its replies under llm.responses (${shapes}), or cast with a real provider, e.g. --llm anthropic/claude-sonnet-4-5`
        : `scripted llm ${name} has no response left for query ${at + 1} (it lists ${this.options.responses.length}): add replies under llm.responses, or cycle: true to start again after the last`;
    return new ConfigError("script_exhausted", message);
  }

  private toResponse(
    script: ScriptedResponse,
    texts: readonly (string | undefined)[],
    options: QueryOptions,
  ): LLMResponse {
    const toolCalls: ToolCall[] = [];
    const calls = script.tool_calls ?? [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const id = call.id ?? `call_${++this.calls}`;
      // Arguments that are no object, or a reply added to the script after it was read: encoded now.
      const text = texts[i];
      // Built in its final shape (`keepInput` would add `input` to a finished object).
      toolCalls.push(
        text !== undefined
          ? {
              id,
              name: call.gate,
              arguments: text,
              input: JSON.parse(text) as Record<string, unknown>,
            }
          : { id, name: call.gate, arguments: JSON.stringify(call.args ?? {}) },
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

/** Each reply's object tool-call arguments as JSON text (undefined: not an object). */
function encodeArgs(responses: readonly ScriptedResponse[]): (string | undefined)[][] {
  return responses.map((r) =>
    (r?.tool_calls ?? []).map((c) => {
      const args: unknown = c?.args ?? {};
      return isJsonObject(args) ? JSON.stringify(args) : undefined;
    }),
  );
}

/**
 * Whether a reply ends the cast it is given to, as a cast of its script meets it: a plain answer
 * (no tool call, no code), an error, a call of `done`, or code or a command that calls `done` or
 * `submit_answer`. The next cast's part of the script starts after it.
 */
export function endsCast(r: ScriptedResponse | undefined): boolean {
  if (!r || r.error) return true;
  const calls = r.tool_calls ?? [];
  if (calls.some((c) => c?.gate === "done" || c?.gate === "submit_answer")) return true;
  if (r.code !== undefined) return /\b(?:done|submit_answer)\s*\(/.test(r.code);
  if (r.command !== undefined)
    return /(?:^|[\s;&|(])(?:done|submit_answer)[ \t]+[^\s;&|<>)]/.test(r.command);
  return calls.length === 0;
}

function toUsage(u: ScriptedResponse["usage"]): Usage {
  return {
    promptTokens: u?.prompt_tokens ?? 0,
    completionTokens: u?.completion_tokens ?? 0,
    cachedTokens: u?.cached_tokens ?? 0,
  };
}
