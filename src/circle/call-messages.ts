/** What a refused gate call is told (circle.ts). */
import { DELEGATION_GATES } from "./gate-names.js";

export function unknownGateMessage(name: string, known: string[]): string {
  if (DELEGATION_GATES.includes(name)) {
    // COMP-6: say why delegation is missing, not just that it is.
    return `unknown gate ${JSON.stringify(name)}: delegation is warded off in this circle (max_depth 0, COMP-6); this circle has: ${known.join(", ")}`;
  }
  return `unknown gate ${JSON.stringify(name)}; this circle has: ${known.join(", ")}`;
}

/** Where arguments stop being JSON, unquoted: a quote cut short could keep a secret's start. */
export function whereInvalid(err: unknown, args: string): string {
  const at = Number(/position (\d+)/.exec(err instanceof Error ? err.message : "")?.[1] ?? NaN);
  return at < args.length ? `at character ${at + 1} of ${args.length}` : "it ends too soon";
}
