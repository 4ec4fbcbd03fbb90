import type { Gate } from "../gate.js";

/** One function for every echo gate (a closure made per gate would be per circle; see conversation.ts). */
const echo = (args: Record<string, unknown>): unknown => args["text"];

export function echoGate(): Gate {
  return {
    name: "echo",
    description: "Return the given text unchanged.",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "Text to echo back." } },
      required: ["text"],
    },
    execute: echo,
  };
}
