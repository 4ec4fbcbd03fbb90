/**
 * The loom drawn as a tree (`spell loom tree`): every turn under its parent, roots at the
 * left, forks and children as branches. One line a turn: sequence, what was called, how it
 * ended, and — for a council's turns — the phase, loop and seat.
 */
import type { LoomRecord, Turn } from "./turn.js";

function label(t: Turn): string {
  const council = t.metadata["council"] as
    { phase?: string; loop?: number; seat?: string; step?: string } | undefined;
  const where = council
    ? [
        council.phase,
        council.loop === undefined ? undefined : `loop ${council.loop}`,
        council.seat,
        council.step,
      ]
        .filter(Boolean)
        .join(" · ")
    : t.gate_calls.map((g) => g.gate_name).join(", ") || "no gates";
  const end = t.terminated
    ? ` → ${t.reason ?? "terminated"}`
    : t.truncated
      ? ` → truncated (${t.reason ?? "?"})`
      : "";
  return `#${t.sequence} ${where}${end}  [${t.id}${t.entity_id ? ` · ${t.entity_id}` : ""}]`;
}

/** The lines of the tree, in the order turns were appended among siblings. */
export function loomTree(
  records: readonly LoomRecord[],
  redact: (t: string) => string = (t) => t,
): string[] {
  const turns = records.filter((r): r is { type: "turn" } & Turn => r.type === "turn");
  const known = new Set(turns.map((t) => t.id));
  const children = new Map<string | null, Turn[]>();
  for (const t of turns) {
    // A parent the file does not hold (a cut loom) makes the turn a root.
    const parent = t.parent_id && known.has(t.parent_id) ? t.parent_id : null;
    const list = children.get(parent) ?? [];
    list.push(t);
    children.set(parent, list);
  }
  const lines: string[] = [];
  // A thread without branches stays in one column; a branch point indents its branches.
  const walk = (parent: string | null, prefix: string): void => {
    const list = children.get(parent) ?? [];
    const branching = list.length > 1;
    list.forEach((t, i) => {
      const last = i === list.length - 1;
      const mark = branching ? (last ? "└─ " : "├─ ") : "";
      lines.push(redact(`${prefix}${mark}${label(t)}`));
      walk(t.id, branching ? `${prefix}${last ? "   " : "│  "}` : prefix);
    });
  };
  walk(null, "");
  return lines;
}
