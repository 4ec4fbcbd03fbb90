/**
 * The cantrip an HTTP session of `spell serve` summons its entity from. A served spell's sessions and casts
 * share one cantrip, and a summoned entity's sends go on in its LLM itself (core/cast-places.ts):
 * with a scripted model, one session's sends would move the place every later session and
 * `POST /cast` start from (a cast after a session's send ran out of replies). So an LLM with
 * runtime state to carry (`LLM.carry`) gives each session a cantrip of its own at the place the
 * served one stands (its `next()`); any other LLM is shared as it is.
 */
import type { Cantrip } from "../../core/cantrip.js";
import { carried } from "../../core/contract.js";
import type { Loom } from "../../loom/core/index.js";

export function sessionCantrip(cantrip: Cantrip<Loom>): Cantrip<Loom> {
  return carried(cantrip.llm) === cantrip.llm ? cantrip : cantrip.next();
}
