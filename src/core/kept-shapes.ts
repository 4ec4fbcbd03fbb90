/**
 * Specimens: one instance of each class the engine makes per cast or per turn (the cast's run, its
 * tally and abort signal, the entity, the medium's turn and its rules, a turn's gate budget), and
 * of each a program may make per cast (the package's Cantrip, a Circle, a Loom, a JsonlStore, and
 * the ScriptedLLM the kept Cantrip holds: keepShapeOf), kept for the life of the process.
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
const keptClasses = new Set<abstract new (...args: never[]) => unknown>();

/** Keeps `specimen` (and so its class's map) for the life of the process. */
export function keepShape(specimen: object): void {
  specimens.push(specimen);
}

/**
 * Keeps one specimen of `cls`, made by `make` the first time: called from the constructor of a
 * class a program may make anew for every cast (a cantrip, its circle, loom, store and scripted
 * model: the engine itself makes a cantrip and a scripted model per cast for `nextCantrip`), so
 * that a full GC between two such casts frees no map. `make` builds one of stubs, holding
 * nothing of a caller's; the constructor it calls again returns here at once.
 */
export function keepShapeOf(
  cls: abstract new (...args: never[]) => unknown,
  make: () => object,
): void {
  if (keptClasses.has(cls)) return;
  keptClasses.add(cls);
  try {
    keepShape(make());
  } catch {
    // A specimen only saves V8 work: one that cannot be made is none, never the caller's failure.
  }
}

/** How many specimens are kept (tests). */
export function keptShapes(): number {
  return specimens.length;
}
