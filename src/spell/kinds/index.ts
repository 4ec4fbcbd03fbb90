/** The kinds of document the loader knows, built in one place (ARCHITECTURE.md "Kinds of document"). */
import { cantripKind } from "./cantrip.js";
import { KindRegistry } from "./kind.js";

export type { EvalCase, EvalPlan } from "./eval.js";
export type { CouncilProgram, CouncilTestCase } from "./council.js";
export {
  KindRegistry,
  type DocumentKind,
  type KindContext,
  type LazyKind,
  type SchemaValidator,
} from "./kind.js";

/**
 * A fresh registry of every built-in kind; a caller may register more on its own copy. Only
 * `cantrip` is loaded up front: the others load when a document names them.
 */
export function defaultKinds(): KindRegistry {
  return new KindRegistry([
    cantripKind,
    { name: "council", load: async () => (await import("./council.js")).councilKind },
    { name: "flow", load: async () => (await import("./flow.js")).flowKind },
    { name: "eval", load: async () => (await import("./eval.js")).evalKind },
    { name: "flow-tests", load: async () => (await import("./flow-tests.js")).flowTestsKind },
  ]);
}
