/**
 * `spell test` on a council document: each of its `tests:` loads the document afresh (scripted
 * replies start over), runs the council on the case's intent (or the document's) and compares
 * the ExecutorResult with `expect:`.
 */
import { errorMessage } from "../core/errors.js";
import type { ExecutorResult } from "../council/types.js";
import { loadDocument, type LoadedDocument } from "../spell/index.js";
import type { CouncilProgram, CouncilTestCase } from "../spell/kinds/council.js";
import type { CaseResult } from "./case.js";

export async function runCouncilTests(doc: LoadedDocument, file: string): Promise<CaseResult[]> {
  const tests = (doc.document["tests"] ?? []) as CouncilTestCase[];
  const out: CaseResult[] = [];
  for (const [i, test] of tests.entries()) {
    const location = `${file}:${doc.source.position(["tests", i]).line}`;
    const name = test.name ?? `test ${i + 1}`;
    let message: string;
    try {
      const loaded = await loadDocument(file, { loomPath: "memory" });
      const program = loaded.value as CouncilProgram;
      const query = test.intent ?? program.intent;
      message = query
        ? mismatches(await program.engine.run(query), test.expect).join("; ")
        : "no intent: write intent: in the test or the document";
    } catch (err) {
      message = errorMessage(err);
    }
    out.push({ rule: "council", name, status: message ? "fail" : "pass", message, location });
  }
  return out;
}

/** Every expectation the result does not meet, said plainly. */
function mismatches(r: ExecutorResult, expect: CouncilTestCase["expect"]): string[] {
  const out: string[] = [];
  const same = (what: string, got: unknown, want: unknown) => {
    if (want !== undefined && got !== want)
      out.push(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  };
  same("final_response", r.finalResponse, expect.final_response);
  same("loops_executed", r.loopsExecuted, expect.loops_executed);
  same("early_exit", r.earlyExit, expect.early_exit);
  same("short_circuited", r.loopsExecuted === 0, expect.short_circuited);
  same("trace_loops", r.reasoningTrace?.length ?? 0, expect.trace_loops);
  const part = expect.final_response_contains;
  if (part !== undefined && !r.finalResponse.includes(part))
    out.push(
      `final_response does not contain ${JSON.stringify(part)}: ${JSON.stringify(r.finalResponse)}`,
    );
  return out;
}
