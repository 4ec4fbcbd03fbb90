/** Gate names the runtime itself gives meaning to, listed once. */

/** The one gate every circle has (CIRCLE-1); calling it ends the loop with its answer (CIRCLE-8). */
export const DONE = "done";

/** The gates that spawn child entities (chapter 5): warded off at max_depth 0 (COMP-6). */
export const DELEGATION_GATES: readonly string[] = ["call_entity", "call_entity_batch"];
