/**
 * The `query` kind (spec §2.1, Appendix A.1): one round-trip to an LLM. The document names an
 * LLM and the messages it is sent; the value makes that one call and gives back the content and
 * the usage, nothing else. No loop, no circle, no entity, no loom: nothing is created and
 * nothing recorded (LLM-1: the LLM is as it was before the call). SPELL-FORMAT.md "A query".
 */
import type { LLM, Message, Usage } from "../../core/contract.js";
import { ConfigError, type SpellbookError } from "../../core/errors.js";
import { ownEntry } from "../../core/own.js";
import { validateResponse } from "../../core/validate-response.js";
import type { Query, Test } from "../../generated/query.js";
import validateQuery from "../../generated/query-validate.js";
import { createLLM, providerRegistry } from "../../llm/registry.js";
import type { LLMSpec } from "../../llm/spec.js";
import { llmSpecOf } from "../llm-spec.js";
import type { LoadOptions } from "../options.js";
import { didYouMean } from "../suggest.js";
import type { DocumentKind } from "./kind.js";

export type QueryTestCase = Test;

/** What one query gives back (§2.1): the response's content and its token usage. */
export interface QueryAnswer {
  content: string | null;
  usage: Usage;
}

/** A loaded query: its one call, and what `spell run` and `spell test` need around it. */
export interface QueryProgram {
  name: string;
  /** The messages as written. */
  messages: Message[];
  tests: QueryTestCase[];
  /** The one call: `messages` (default: the document's) to the document's LLM. */
  run(messages?: readonly Message[]): Promise<QueryAnswer>;
}

interface Resolved {
  doc: Query;
  spec: LLMSpec | undefined;
}

export const queryKind: DocumentKind<Query, Resolved, QueryProgram | undefined> = {
  name: "query",
  validator: validateQuery,
  resolve(doc, ctx) {
    const options = ctx.options as LoadOptions;
    const own = llmSpecOf(doc.llm);
    const spec = options.llmSpec ?? own;
    const errors: SpellbookError[] = [];
    if (spec && !ownEntry(providerRegistry, spec.provider)) {
      const known = Object.keys(providerRegistry);
      const hint = didYouMean(spec.provider, known) || `; known: ${known.join(", ")}`;
      const message = `unknown llm provider ${JSON.stringify(spec.provider)}${hint}`;
      errors.push(new ConfigError("unknown_provider", message, ctx.locate(["llm"])));
    }
    if (!spec && !options.llm && !options.everyLLM && !options.validateOnly)
      errors.push(
        new ConfigError(
          "missing_llm",
          "a query needs an llm: (or --llm provider/model)",
          ctx.locate([]),
        ),
      );
    return Promise.resolve({ resolved: { doc, spec }, errors });
  },
  async compile({ doc, spec }, ctx) {
    const options = ctx.options as LoadOptions;
    if (options.validateOnly) return { errors: [] };
    let llm = options.everyLLM ?? options.llm;
    if (!llm) {
      try {
        llm = await createLLM(spec!, {
          redactor: ctx.redactor,
          env: ctx.env,
          baseDir: ctx.baseDir,
          ...(options.onWarning ? { warn: options.onWarning } : {}),
        });
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        return { errors: [new ConfigError(err.code, err.message, ctx.locate(["llm"]))] };
      }
    }
    const fixed = llm;
    const messages = doc.messages.map((m) => ({ ...m }));
    return {
      errors: [],
      value: {
        name: doc.name ?? "query",
        messages,
        tests: doc.tests ?? [],
        run: (sent = messages) => query(fixed, sent),
      },
    };
  },
};

/** The one call: LLM-3's invalid replies are errors, as in a turn of the loop. */
async function query(llm: LLM, messages: readonly Message[]): Promise<QueryAnswer> {
  const response = await llm.query(messages);
  validateResponse(response, messages);
  return { content: response.content, usage: response.usage };
}
