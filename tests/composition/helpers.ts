import { setTimeout as sleep } from "node:timers/promises";
import { DefaultCantrip as Cantrip } from "../../src/default-cantrip.js";
import type { Ward } from "../../src/core/wards.js";
import { Circle } from "../../src/circle/circle.js";
import type { Gate } from "../../src/circle/gate.js";
import {
  callEntityBatchGate,
  callEntityGate,
  doneGate,
  echoGate,
} from "../../src/circle/gates/index.js";
import { codeMedium } from "../../src/circle/mediums/code/index.js";
import {
  combineSources,
  type ChildLLMSource,
  type SpawnConfig,
} from "../../src/circle/spawn/index.js";
import type { LLM, LLMResponse, Message, QueryOptions } from "../../src/core/contract.js";
import { ScriptedLLM, type ScriptedResponse } from "../../src/llm/providers/scripted.js";
import type { Loom } from "../../src/loom/core/index.js";

export type Reply =
  | { done: unknown }
  | { code: string }
  | { text: string }
  | { call: string; args: Record<string, unknown> }
  | { fail: string };

/**
 * A test LLM that answers from its intent (the first user message), so that concurrent
 * children each get their own script. It records every query it receives.
 */
export class IntentLLM implements LLM {
  readonly queries: Message[][] = [];
  private calls = 0;
  constructor(
    readonly name: string,
    private readonly answer: (
      intent: string,
      turn: number,
      messages: readonly Message[],
      signal: AbortSignal | undefined,
    ) => Reply | Promise<Reply>,
  ) {}

  async query(messages: readonly Message[], options?: QueryOptions): Promise<LLMResponse> {
    this.queries.push([...messages]);
    const intent = messages.find((m) => m.role === "user")?.content ?? "";
    const turn = messages.filter((m) => m.role === "assistant").length + 1;
    const reply = await this.answer(String(intent), turn, messages, options?.signal);
    const id = `call_${++this.calls}`;
    const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0 };
    if ("fail" in reply) throw new Error(reply.fail);
    if ("text" in reply) return { content: reply.text, toolCalls: null, usage };
    if ("code" in reply)
      return {
        content: null,
        toolCalls: [{ id, name: "js", arguments: JSON.stringify({ code: reply.code }) }],
        usage,
      };
    if ("done" in reply)
      return {
        content: null,
        toolCalls: [{ id, name: "done", arguments: JSON.stringify({ answer: reply.done }) }],
        usage,
      };
    return {
      content: null,
      toolCalls: [{ id, name: reply.call, arguments: JSON.stringify(reply.args) }],
      usage,
    };
  }
}

export const delay = (ms: number) => sleep(ms);

export function llmSource(
  named: Record<string, { llm: LLM; medium?: string }>,
  byDepth: Record<number, LLM> = {},
): ChildLLMSource {
  return combineSources({
    pick: (name, depth) =>
      Promise.resolve(
        name !== undefined ? named[name] : byDepth[depth] ? { llm: byDepth[depth] } : undefined,
      ),
    names: () => Object.keys(named),
  });
}

export interface ParentOptions {
  llm: LLM;
  gates?: Gate[];
  wards?: Ward[];
  code?: boolean;
  spawn?: SpawnConfig;
  systemPrompt?: string;
  loom?: Loom;
}

/** A parent cantrip with call_entity and call_entity_batch in its circle. */
export function parentCantrip(options: ParentOptions): Cantrip {
  const spawn = options.spawn ?? {};
  return new Cantrip({
    llm: options.llm,
    identity: { systemPrompt: options.systemPrompt ?? "You are the PARENT orchestrator." },
    circle: new Circle({
      ...(options.code ? { medium: codeMedium } : {}),
      gates: [
        doneGate(),
        echoGate(),
        callEntityGate(spawn),
        callEntityBatchGate(spawn),
        ...(options.gates ?? []),
      ],
      wards: options.wards ?? [{ max_turns: 10 }],
    }),
    ...(options.loom ? { loom: options.loom } : {}),
  });
}

export const scripted = (responses: ScriptedResponse[], name = "scripted") =>
  new ScriptedLLM({ responses, recordInputs: true, name });
