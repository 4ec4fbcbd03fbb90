import type { Gate } from "../gate.js";

/** The one gate every circle has (CIRCLE-1); calling it ends the loop with its answer (CIRCLE-8). */
export const DONE = "done";

export function doneGate(): Gate {
  return {
    name: DONE,
    description: "Finish the task: call this with the final answer. The loop stops after it.",
    parameters: {
      type: "object",
      properties: { answer: { description: "The final answer or result." } },
      required: ["answer"],
    },
    execute: (args) => args["answer"],
  };
}
