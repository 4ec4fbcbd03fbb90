/**
 * Runs flow test cases (FLOWS.md "Conformance: flow tests"): a fresh flow per case, its messages one
 * cycle each through the real FlowRunner, then the expectations compared with the normalized
 * trace (§8). A field written in an expected trace entry is compared exactly; a field left out
 * is not compared — the case says what it compares.
 */
import { isDeepStrictEqual } from "node:util";
import { errorMessage } from "../core/errors.js";
import type { FlowTest } from "../spell/index.js";
import { flowDna, FlowRunner, type CycleTrace, type Dna, type TapeValue } from "../flows/index.js";
import { loadDocument, type LoadedDocument } from "../spell/index.js";
import type { CompiledFlow } from "../spell/kinds/flow-kind.js";
import type { FlowCase, FlowSuite } from "../spell/kinds/flow-tests.js";
import type { CaseResult } from "./case.js";

/** What a case's run produced, as JSON (undefined fields gone). */
interface Observed {
  trace: CycleTrace[];
  emitted: unknown[];
  tape: TapeValue;
  dna: Dna;
}

const json = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const show = (v: unknown) => JSON.stringify(v);

export async function runFlowCase(c: FlowCase): Promise<CaseResult> {
  const head = { rule: c.test.rule ?? "", name: c.test.name ?? "(unnamed)", location: c.location };
  if (c.test.skip) return { ...head, status: "skip", message: c.test.skip };
  const unknown = Object.keys(c.test.expect).filter((k) => !EXPECTATIONS.has(k));
  if (unknown.length)
    return { ...head, status: "fail", message: `unsupported expectation: ${unknown.join(", ")}` };
  if (c.test.expect.error !== undefined) return expectError(head, c);
  let compiled: CompiledFlow | undefined;
  try {
    compiled = await c.build();
    const observed = await observe(compiled, c.test);
    const failures = compare(c.test.expect, observed);
    return { ...head, status: failures.length ? "fail" : "pass", message: failures.join("; ") };
  } catch (err) {
    return { ...head, status: "fail", message: errorMessage(err) };
  } finally {
    compiled?.dispose();
  }
}

const EXPECTATIONS = new Set(["trace", "emitted", "tape", "error", "dna"]);

/** A flow that must not load: the error must say what the case expects. */
async function expectError(
  head: Omit<CaseResult, "status" | "message">,
  c: FlowCase,
): Promise<CaseResult> {
  const want = c.test.expect.error!;
  try {
    (await c.build()).dispose();
  } catch (err) {
    const message = errorMessage(err);
    return message.includes(want)
      ? { ...head, status: "pass", message: "" }
      : { ...head, status: "fail", message: `error: expected ${show(want)} in ${show(message)}` };
  }
  return { ...head, status: "fail", message: `error: expected ${show(want)}, but the flow loaded` };
}

async function observe(compiled: CompiledFlow, test: FlowTest): Promise<Observed> {
  const runner = new FlowRunner(
    compiled.flow,
    "tape" in test ? (test.tape as TapeValue) : compiled.flow.initialTape,
  );
  const trace: CycleTrace[] = [];
  const emitted: unknown[] = [];
  for (const message of test.messages) {
    const r = await runner.cycle(message);
    trace.push(json(r.trace) as CycleTrace);
    emitted.push(...r.emitted.map((e) => json(e.payload)));
  }
  return {
    trace,
    emitted,
    tape: json(runner.tapeValue()) as TapeValue,
    dna: json(flowDna(compiled.flow)) as Dna,
  };
}

function compare(expect: FlowTest["expect"], got: Observed): string[] {
  const failures: string[] = [];
  const check = (what: string, want: unknown, have: unknown) => {
    if (!isDeepStrictEqual(json(want), have))
      failures.push(`${what}: expected ${show(want)}, got ${show(have)}`);
  };
  if (expect.trace) {
    if (expect.trace.length !== got.trace.length)
      failures.push(`trace: expected ${expect.trace.length} cycles, got ${got.trace.length}`);
    expect.trace.forEach((want, i) => {
      const have = (got.trace[i] ?? {}) as unknown as Record<string, unknown>;
      for (const [field, value] of Object.entries(want)) {
        // `dropped: null` says the message was not dropped.
        check(`trace[${i}].${field}`, value ?? undefined, have[field]);
      }
    });
  }
  if (expect.emitted) check("emitted", expect.emitted, got.emitted);
  if ("tape" in expect) check("tape", expect.tape, got.tape);
  const dna = got.dna as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(expect.dna ?? {}))
    check(`dna.${field}`, value, dna[field]);
  return failures;
}

/** `spell test` on a `kind: flow` document: its `tests:`, each on a freshly loaded flow. */
export async function runFlowDocumentTests(
  loaded: LoadedDocument,
  file: string,
): Promise<CaseResult[]> {
  const tests = (loaded.document as { tests?: FlowTest[] }).tests ?? [];
  const results: CaseResult[] = [];
  for (const [i, test] of tests.entries()) {
    const location = `${file}:${loaded.source.position(["tests", i]).line}`;
    const build = async () =>
      (await loadDocument(file, { loomPath: "memory" })).value as CompiledFlow;
    results.push(redacted(await runFlowCase({ test, location, build }), loaded));
  }
  return results;
}

/** `spell test` on a `kind: flow-tests` suite (loaded again: `spell test` loads to validate only). */
export async function runFlowSuite(loaded: LoadedDocument, file: string): Promise<CaseResult[]> {
  const suite = (await loadDocument(file, { loomPath: "memory" })).value as FlowSuite;
  const results: CaseResult[] = [];
  for (const c of suite.cases) results.push(redacted(await runFlowCase(c), loaded));
  return results;
}

/** A message may quote a payload that holds a secret of the document (PROD-8). */
const redacted = (r: CaseResult, loaded: LoadedDocument): CaseResult => ({
  ...r,
  message: loaded.redactor.redact(r.message),
});
