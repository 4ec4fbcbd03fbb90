import type { Gate } from "../../gate.js";
import { DONE } from "../../gate-names.js";
import { isJsonObject as isPlainObject } from "../../../core/json.js";

/**
 * A gate function takes positional arguments in the order of its schema's properties, or one
 * object of named arguments: `echo("hi")` and `echo({ text: "hi" })` are the same call.
 * `done(x)` always answers with `x` itself, except `done({ answer: x })`.
 */
export function namedArguments(
  gate: Gate | undefined,
  name: string,
  args: unknown[],
): Record<string, unknown> | string {
  if (!gate) return `unknown gate ${JSON.stringify(name)}`;
  const props = Object.keys(gate.parameters.properties ?? {});
  const required = gate.parameters.required ?? [];
  const only = args.length === 1 ? args[0] : undefined;
  if (isPlainObject(only)) {
    const keys = Object.keys(only);
    if (gate.name === DONE) {
      if (keys.length === 1 && keys[0] === "answer") return only;
    } else if (
      props.length === 0 ||
      (keys.every((k) => props.includes(k)) && required.every((k) => k in only))
    ) {
      return only;
    }
  }
  if (gate.name === DONE) return args.length ? { answer: args[0] } : {};
  if (args.length > props.length) {
    return `${name} takes ${props.length ? `(${props.join(", ")})` : "no arguments"} or one object of named arguments; got ${args.length} arguments`;
  }
  const out: Record<string, unknown> = {};
  props.forEach((p, i) => {
    if (i < args.length && args[i] !== null) out[p] = args[i]; // JSON turns a skipped (undefined) argument into null
  });
  return out;
}
