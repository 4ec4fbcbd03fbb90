/**
 * `cast:` handlers: a cantrip decides (ARCHITECTURE.md "Kinds of document"). The intent is the
 * handler's input as JSON; the cast records into the cantrip's loom like any other. A receiver
 * maps the result to an event, a sender's result is the outgoing payload, a hook's result is the
 * new payload (null drops). A cast that does not terminate (a ward truncated it) is a failure.
 */
import type { Cantrip } from "../core/cantrip.js";
import { SpellbookError } from "../core/errors.js";
import type { HandlerContext, HookFn, ReceiverFn, SenderFn } from "./handler.js";

/**
 * A handler's cantrip: each cast is of the cantrip the last one returned (`nextCantrip`), so the
 * LLM's runtime state (a scripted model's place) goes on from call to call, as seed 002 casts.
 */
class Caster {
  constructor(private cantrip: Cantrip) {}
  get name(): string {
    return this.cantrip.name;
  }
  async cast(intent: string, signal: AbortSignal) {
    const r = await this.cantrip.cast(intent, { signal });
    this.cantrip = r.nextCantrip;
    return r;
  }
}

async function decide(cantrip: Caster, input: object, signal: AbortSignal): Promise<unknown> {
  const r = await cantrip.cast(JSON.stringify(input), signal);
  if (!r.terminated)
    throw new SpellbookError("cast_truncated", `the cast of ${cantrip.name} stopped: ${r.reason}`);
  return parsedResult(r.result);
}

/** A result that is JSON text (a done answer written as JSON) is read as the value it writes. */
function parsedResult(result: unknown): unknown {
  if (typeof result !== "string") return result;
  const t = result.trim();
  if (!/^[[{"]|^null$/.test(t)) return result;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return result;
  }
}

/**
 * A receiver's event from a result: `{ action, trigger }`, or the text `move`, `stay ok`,
 * `test: checked` (action, then an optional trigger). Anything else fails the receiver.
 */
export function eventOf(result: unknown): unknown {
  if (typeof result !== "string") return result;
  // The model's text: read without a pattern that backtracks over it (`(.*?)\s*$` was
  // quadratic in a run of spaces: a megabyte of them held the flow for minutes).
  const text = result.trimStart();
  const m = /^(test|stay|move)\b[\s:]*/i.exec(text);
  const trigger = m ? text.slice(m[0].length).trimEnd() : "";
  if (!m || /[\n\r\u2028\u2029]/.test(trigger)) return { action: result };
  return { action: m[1]!.toUpperCase(), trigger: trigger || null };
}

export function castReceiver(spell: Cantrip): ReceiverFn {
  const cantrip = new Caster(spell);
  return async (i) =>
    eventOf(
      await decide(
        cantrip,
        { payload: i.payload, key: i.key, state: i.state, route: i.route },
        i.signal,
      ),
    ) as ReturnType<ReceiverFn>;
}

export function castSender(spell: Cantrip): SenderFn {
  const cantrip = new Caster(spell);
  return (i) =>
    decide(cantrip, { payload: i.payload, key: i.key, event: i.event, route: i.route }, i.signal);
}

export function castHook(spell: Cantrip): HookFn {
  const cantrip = new Caster(spell);
  return (payload: unknown, ctx: HandlerContext) => decide(cantrip, { payload }, ctx.signal);
}
