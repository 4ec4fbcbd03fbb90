/** The kinds of document the loader knows, built in one place (ARCHITECTURE.md "Kinds of document"). */
import { cantripKind } from "./cantrip.js";
import { KindRegistry, type DocumentKind, type LazyKind } from "./kind.js";

export type { CouncilProgram, CouncilTestCase } from "./council.js";
export {
  KindRegistry,
  type DocumentKind,
  type KindContext,
  type LazyKind,
  type SchemaValidator,
} from "./kind.js";

/**
 * The built-in document kinds, each named once, here: `KindName` comes from this table, and the
 * tables of what each command does with a kind (`spell run`: cli/kind-runners.ts, `spell test`:
 * conformance/kinds.ts) are keyed by it, so a kind they name that is not here does not compile.
 * Only `cantrip` is loaded up front: the others load when a document names them.
 */
const BUILT_IN = {
  cantrip: cantripKind,
  council: { name: "council", load: async () => (await import("./council.js")).councilKind },
  flow: { name: "flow", load: async () => (await import("./flow.js")).flowKind },
  "flow-tests": {
    name: "flow-tests",
    load: async () => (await import("./flow-tests.js")).flowTestsKind,
  },
} as const satisfies Record<string, DocumentKind | LazyKind>;

/** The name of a built-in document kind (`kind:` in a document; `cantrip` when absent). */
export type KindName = keyof typeof BUILT_IN;

/** A fresh registry of every built-in kind; a caller may register more on its own copy. */
export function defaultKinds(): KindRegistry {
  return new KindRegistry(Object.values(BUILT_IN));
}
