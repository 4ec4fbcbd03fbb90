import type { Gate } from "../gate.js";

export function echoGate(): Gate {
  return {
    name: "echo",
    description: "Return the given text unchanged.",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "Text to echo back." } },
      required: ["text"],
    },
    execute: (args) => args["text"],
  };
}
