/**
 * `spell test` on a query document (kind: query, Appendix A.1): each of its `tests:` makes the one
 * query with a fresh scripted LLM — the case's `responses:`, else the document's scripted ones —
 * and compares the answer (content, usage), what the LLM was sent, or the error with `expect:`.
 */
import { errorMessage } from "../core/errors.js";
import { ScriptedLLM, type ScriptedResponse } from "../llm/providers/scripted.js";
import { loadDocument, type LoadedDocument } from "../spell/index.js";
import type { QueryAnswer, QueryProgram, QueryTestCase } from "../spell/kinds/index.js";
import { llmSpecOf } from "../spell/llm-spec.js";
import type { CaseResult } from "./case.js";

export async function runQueryTests(doc: LoadedDocument, file: string): Promise<CaseResult[]> {
  const tests = (doc.document["tests"] ?? []) as QueryTestCase[];
  const spec = llmSpecOf(doc.document["llm"]);
  const own = spec?.provider === "scripted" ? spec.responses : undefined;
  const out: CaseResult[] = [];
  for (const [i, test] of tests.entries()) {
    const location = `${file}:${doc.source.position(["tests", i]).line}`;
    const message = (await mismatches(file, test, own)).join("; ");
    out.push({
      rule: "A.1",
      name: test.name,
      status: message ? "fail" : "pass",
      message,
      location,
    });
  }
  return out;
}

async function mismatches(
  file: string,
  test: QueryTestCase,
  own: ScriptedResponse[] | undefined,
): Promise<string[]> {
  const responses = test.responses ?? own;
  if (!responses) return ["no scripted replies: write responses: in the test or a scripted llm:"];
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const want = test.expect;
  let answer: QueryAnswer;
  try {
    // Loaded afresh with the case's LLM: nothing carries from one case to the next.
    const program = (await loadDocument(file, { llm })).value as QueryProgram;
    answer = await program.run();
  } catch (err) {
    const text = errorMessage(err);
    if (want.error !== undefined && text.includes(want.error)) return [];
    return [`the query failed: ${text}`];
  }
  const out: string[] = [];
  const same = (what: string, got: unknown, expected: unknown) => {
    if (expected !== undefined && JSON.stringify(got) !== JSON.stringify(expected))
      out.push(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  };
  if (want.error !== undefined) out.push(`expected an error containing ${want.error}`);
  same("content", answer.content, want.content);
  const u = answer.usage;
  const usage = {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    cached_tokens: u.cachedTokens,
    total_tokens: u.promptTokens + u.completionTokens,
  };
  for (const [key, value] of Object.entries(want.usage ?? {}))
    same(`usage.${key}`, usage[key as keyof typeof usage], value);
  same("sent", llm.invocations[0]?.messages, want.sent);
  return out;
}
