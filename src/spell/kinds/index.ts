/** The kinds of document the loader knows, built in one place (ARCHITECTURE.md "Kinds of document"). */
import { cantripKind } from "./cantrip.js";
import { councilKind } from "./council.js";
import { flowKind } from "./flow.js";
import { flowTestsKind } from "./flow-tests.js";
import { KindRegistry } from "./kind.js";

export type { CouncilProgram, CouncilTestCase } from "./council.js";
export { KindRegistry, type DocumentKind, type KindContext, type SchemaValidator } from "./kind.js";

/** A fresh registry of every built-in kind; a caller may register more on its own copy. */
export function defaultKinds(): KindRegistry {
  return new KindRegistry([cantripKind, councilKind, flowKind, flowTestsKind]);
}
