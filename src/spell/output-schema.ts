/**
 * `output_schema:` (issue 26): the circle's `done` checks its answer against the schema, and
 * `require_done_tool` holds, so the result a caller receives matches the schema — or the cast
 * ends truncated and says so (a text reply does not end a cast that must answer through done).
 */
import type { Gate } from "../circle/gate.js";
import { doneGate } from "../circle/gates/index.js";
import { DONE } from "../circle/gate-names.js";
import type { Ward } from "../core/wards.js";

export function typedOutput(
  schema: Readonly<Record<string, unknown>> | undefined,
  gates: readonly Gate[],
  wards: readonly Ward[],
): { gates: Gate[]; wards: Ward[] } {
  if (!schema) return { gates: [...gates], wards: [...wards] };
  return {
    gates: gates.map((g) => (g.name === DONE ? doneGate(schema) : g)),
    wards: [...wards, { require_done_tool: true }],
  };
}
