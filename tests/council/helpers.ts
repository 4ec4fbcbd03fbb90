import { ScriptedLLM } from "../../src/llm/providers/scripted.js";

/** A valid triage output (snake_case, as the triage agent emits it), with overrides. */
export function triageJson(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    reconstructed_query: "Should we adopt a four-day week?",
    complexity: "complex",
    council: [
      { role: "domain_expert", system_prompt: "You are a labour economist." },
      { role: "pragmatist", system_prompt: "You run operations at a mid-size firm." },
      { role: "red_team", system_prompt: "Attack the proposals." },
    ],
    loop_grammar: "parallel",
    loop_count: 2,
    red_team_flavor: "logical",
    allow_early_exit: false,
    synthesis_instruction: "Answer in three sentences.",
    ...over,
  };
}

/** A scripted LLM that records what it is asked. */
export function scripted(name: string, contents: string[]): ScriptedLLM {
  return new ScriptedLLM({
    name,
    responses: contents.map((content) => ({ content })),
    recordInputs: true,
  });
}

/** The messages of each query the LLM received. */
export const asked = (llm: ScriptedLLM) => llm.invocations.map((i) => i.messages);
