import type { QuickJSHandle } from "quickjs-emscripten";
import type { WireReply } from "./protocol.js";
import type { Shell } from "./shell.js";

/**
 * A gate call's arguments as the gate function passed them: none, one string (with its length),
 * or a JSON array. A string is copied out as it is, but the copy stops at a NUL and turns an
 * unpaired surrogate into U+FFFD: a copy shorter than the string, or holding U+FFFD, is redone
 * through JSON. Undefined when the JSON does not parse.
 */
export function gateArguments(
  shell: Shell,
  argsH?: QuickJSHandle,
  lengthH?: QuickJSHandle,
): unknown[] | undefined {
  if (!argsH) return [];
  const ctx = shell.context;
  try {
    if (!lengthH) return JSON.parse(ctx.getString(argsH)) as unknown[];
    const text = ctx.getString(argsH);
    if (text.length === ctx.getNumber(lengthH) && !text.includes("\uFFFD")) return [text];
    const quoted = ctx.unwrapResult(ctx.callFunction(shell.helpers.quote, ctx.undefined, argsH));
    return [JSON.parse(quoted.consume((q) => ctx.getString(q))) as unknown];
  } catch {
    return undefined;
  }
}

/** A gate's value inside the sandbox: primitives directly, structured values through JSON. */
export function toVm(shell: Shell, reply: WireReply & { ok: true }): QuickJSHandle | undefined {
  const ctx = shell.context;
  if (reply.json !== undefined) {
    const json = ctx.newString(reply.json);
    try {
      return ctx.unwrapResult(ctx.callFunction(shell.helpers.parse, ctx.undefined, json));
    } finally {
      json.dispose();
    }
  }
  const value = reply.value;
  switch (typeof value) {
    case "undefined":
      return undefined;
    case "number":
      return ctx.newNumber(value);
    case "string":
      return ctx.newString(value);
    case "boolean":
      return value ? ctx.true : ctx.false;
    default:
      return ctx.null;
  }
}
