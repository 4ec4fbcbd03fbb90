/** What a refused gate call is told (circle.ts). */
import { DELEGATION_GATES } from "./gate-names.js";

export function unknownGateMessage(name: string, known: string[]): string {
  if (DELEGATION_GATES.includes(name)) {
    // COMP-6: say why delegation is missing, not just that it is.
    return `unknown gate ${JSON.stringify(name)}: delegation is warded off in this circle (max_depth 0, COMP-6); this circle has: ${known.join(", ")}`;
  }
  return `unknown gate ${JSON.stringify(name)}; this circle has: ${known.join(", ")}`;
}

/**
 * Where arguments stop being JSON, unquoted: a quote cut short could keep a secret's start. V8
 * names a position for some errors and not for an unexpected token, whose message quotes ~10
 * characters of the input after a comma: that part is left out.
 */
export function whereInvalid(err: unknown, args: string): string {
  const message = err instanceof Error ? err.message : "";
  const at = /position (\d+)/.exec(message)?.[1];
  if (at !== undefined) return `at character ${Number(at) + 1} of ${args.length}`;
  if (/end of JSON input/i.test(message)) return "it ends too soon";
  return message.split(', "', 1)[0] || "not JSON";
}
