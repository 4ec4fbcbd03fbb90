/**
 * Specimens: one instance of each class the engine makes per cast or per turn (the cast's run, its
 * tally and abort signal, the entity, the medium's turn and its rules, a turn's gate budget), kept
 * for the life of the process.
 *
 * V8 keeps the hidden class ("map") of a class's instances only while something holds it: the map
 * a constructor's fields lead to is a transition of the class's first map, held weakly. When a
 * full GC finds no instance alive, between two casts, it frees the map, and every optimized
 * function that checks it is thrown away ("weak objects" in `node --trace-deopt`: ~50 functions
 * of the loop, the medium and the gates a cast): each cast after it starts in the interpreter and
 * compiles them again. A specimen keeps each map alive, so the code stays. Specimens are built
 * with stubs, never from a real cast: they hold nothing of anyone's (docs/design/BENCH.md, issue
 * 40, the engine row again).
 */
const specimens: object[] = [];

/** Keeps `specimen` (and so its class's map) for the life of the process. */
export function keepShape(specimen: object): void {
  specimens.push(specimen);
}

/** How many specimens are kept (tests). */
export function keptShapes(): number {
  return specimens.length;
}
