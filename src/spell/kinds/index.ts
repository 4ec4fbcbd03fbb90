/** The kinds of document the loader knows, built in one place (ARCHITECTURE.md "Kinds of document"). */
import { cantripKind } from "./cantrip.js";
import { KindRegistry, type DocumentKind, type LazyKind } from "./kind.js";

export type { EvalCase, EvalPlan } from "./eval.js";
export type { CouncilProgram, CouncilTestCase } from "./council.js";
export type { QueryAnswer, QueryProgram, QueryTestCase } from "./query.js";
export {
  KindRegistry,
  type DocumentKind,
  type KindContext,
  type LazyKind,
  type SchemaValidator,
} from "./kind.js";

/** The name of a built-in document kind (`kind:` in a document; `cantrip` when absent). */
export type KindName = "cantrip" | "council" | "eval" | "flow" | "flow-tests" | "query";

/**
 * The built-in document kinds, one entry per KindName (a name missing here, or here and not in
 * KindName, does not compile). The tables of what each command does with a kind (`spell run`:
 * cli/kind-runners.ts, `spell test`: conformance/kinds.ts) are keyed by KindName too.
 * Only `cantrip` is loaded up front: the others load when a document names them.
 */
const BUILT_IN: Readonly<Record<KindName, DocumentKind | LazyKind>> = {
  cantrip: cantripKind,
  council: { name: "council", load: async () => (await import("./council.js")).councilKind },
  eval: { name: "eval", load: async () => (await import("./eval.js")).evalKind },
  flow: { name: "flow", load: async () => (await import("./flow-kind.js")).flowKind },
  "flow-tests": {
    name: "flow-tests",
    load: async () => (await import("./flow-tests.js")).flowTestsKind,
  },
  query: { name: "query", load: async () => (await import("./query.js")).queryKind },
};

/** A fresh registry of every built-in kind; a caller may register more on its own copy. */
export function defaultKinds(): KindRegistry {
  return new KindRegistry(Object.values(BUILT_IN));
}
