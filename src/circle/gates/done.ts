import type { Gate } from "../gate.js";

import { DONE } from "../gate-names.js";

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
