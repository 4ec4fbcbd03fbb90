import type { Gate } from "../gate.js";
import { compileSchema, schemaProblem } from "../../core/json-schema.js";
import { DONE } from "../gate-names.js";

const DESCRIPTION = "Finish the task: call this with the final answer. The loop stops after it.";

/**
 * The `done` gate. With an output schema (a spell's `output_schema:`) its `answer` parameter
 * carries the schema (a provider that reads tool schemas shapes the answer by it), and an answer
 * that does not match is an error naming the mismatch: the entity reads it and the loop goes on
 * (LOOP-7), so a cast ends only on an answer that matches.
 */
/** One function for every schema-less done gate (see echo.ts). */
const answerOf = (args: Record<string, unknown>): unknown => args["answer"];

export function doneGate(outputSchema?: Readonly<Record<string, unknown>>): Gate {
  if (!outputSchema) {
    return {
      name: DONE,
      description: DESCRIPTION,
      parameters: {
        type: "object",
        properties: { answer: { description: "The final answer or result." } },
        required: ["answer"],
      },
      execute: answerOf,
    };
  }
  return {
    name: DONE,
    description: `${DESCRIPTION} The answer must match the output schema.`,
    parameters: {
      type: "object",
      properties: {
        answer: { description: "The final answer, matching the output schema.", ...outputSchema },
      },
      required: ["answer"],
    },
    execute: async (args) => {
      const answer = args["answer"];
      const problem = schemaProblem(await compileSchema(outputSchema), answer, "answer");
      if (problem)
        throw new Error(
          `done refused: ${problem} (the output schema: ${JSON.stringify(outputSchema)}); call done again with an answer that matches it`,
        );
      return answer;
    },
  };
}
