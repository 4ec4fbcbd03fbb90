/**
 * Where each scripted model stands in one cast (docs/design/EVALS.md; issue 45, the same verdict
 * everywhere). A cast opens a scope of its own: the scripted models its entity (and its children,
 * which cast inside it) query keep their place in that scope, not in the model, so which reply a
 * cast gets depends on the cast — the place its cantrip was at and its seat (which cast of a series
 * it is: an eval's case and repeat) — and on its turns, never on which process ran it or on what
 * other casts asked before. The cantrip cast is unchanged; its `nextCantrip` goes on from the
 * cast's place. A summoned entity's sends, outside any cast, go on in the model itself.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface CastPlaces {
  /** Which cast of a series this is (0 the first); undefined: a cast on its own. */
  readonly seat: number | undefined;
  /** Each scripted model's next reply in this cast, by model. */
  readonly places: Map<object, number>;
}

export const castPlaces = new AsyncLocalStorage<CastPlaces>();

/** The scope a cast runs in: its caller's when it is cast inside another (a child), else its own. */
export function castScopeFor(seat: number | undefined): CastPlaces {
  const outer = castPlaces.getStore();
  if (outer && seat === undefined) return outer;
  return { seat, places: new Map() };
}
