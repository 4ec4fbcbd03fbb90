import { DefaultCantrip as Cantrip } from "../../src/default-cantrip.js";
import type { Ward } from "../../src/core/wards.js";
import { Circle } from "../../src/circle/circle.js";
import type { Gate } from "../../src/circle/gate.js";
import { behaviorGate, doneGate, echoGate } from "../../src/circle/gates/index.js";
import { codeMedium, createCodeMedium } from "../../src/circle/mediums/code/index.js";
import { ScriptedLLM, type ScriptedResponse } from "../../src/llm/providers/scripted.js";
import type { Loom } from "../../src/loom/core/index.js";

export interface CodeCantripOptions {
  gates?: Gate[];
  wards?: Ward[];
  state?: Record<string, unknown>;
  systemPrompt?: string | null;
  loom?: Loom;
}

/** A code-circle cantrip whose LLM replies with the given code (a string) or response, one per turn. */
export function codeCantrip(
  replies: (string | ScriptedResponse)[],
  options: CodeCantripOptions = {},
) {
  const llm = new ScriptedLLM({
    responses: replies.map((c) => (typeof c === "string" ? { code: c } : c)),
    recordInputs: true,
  });
  const cantrip = new Cantrip({
    llm,
    identity: {
      systemPrompt: options.systemPrompt === undefined ? "You write code." : options.systemPrompt,
    },
    circle: new Circle({
      medium: options.state ? createCodeMedium({ state: options.state }) : codeMedium,
      gates: options.gates ?? [doneGate(), echoGate()],
      wards: options.wards ?? [{ max_turns: 10 }],
    }),
    ...(options.loom ? { loom: options.loom } : {}),
  });
  return { cantrip, llm };
}

export const slowGate = (delayMs: number, result: unknown = "slow result") =>
  behaviorGate({ name: "slow_gate", behavior: { delay_ms: delayMs, result } });

export const failingGate = (error = "gate failed") =>
  behaviorGate({ name: "failing_gate", behavior: { error } });

export { doneGate, echoGate };
