/**
 * How `spell test` runs the `tests:` of a document that is not a cantrip: one entry per kind (a
 * KindName, spell/kinds/index.ts, where kinds are named). A kind whose documents carry no tests
 * needs no entry.
 */
import type { KindName, LoadedDocument } from "../spell/index.js";
import type { CaseResult } from "./case.js";
import { runFlowDocumentTests, runFlowSuite } from "./flow-tests.js";

export type KindTestRunner = (loaded: LoadedDocument, file: string) => Promise<CaseResult[]>;

export const kindTestRunners: Readonly<Partial<Record<KindName, KindTestRunner>>> = {
  council: async (loaded, file) =>
    (await import("./council-cases.js")).runCouncilTests(loaded, file),
  flow: runFlowDocumentTests,
  "flow-tests": runFlowSuite,
  query: async (loaded, file) => (await import("./query-cases.js")).runQueryTests(loaded, file),
};
