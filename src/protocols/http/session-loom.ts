import type { Loom } from "../../loom/loom.js";

/** A session's turns as JSONL (its entity's identity first), every string redacted. */
export function sessionLoom(loom: Loom, entityId: string, redact: (t: string) => string): string {
  const replacer = (_key: string, value: unknown) =>
    typeof value === "string" ? redact(value) : value;
  const turns = loom.turns().filter((t) => t.entity_id === entityId);
  const lines: string[] = [];
  const identity = turns[0] && loom.identity(turns[0].cantrip_id);
  if (identity) lines.push(JSON.stringify({ type: "identity", ...identity }, replacer));
  for (const t of turns) lines.push(JSON.stringify({ type: "turn", ...t }, replacer));
  return lines.map((l) => `${l}\n`).join("");
}
