/**
 * The `flow-tests` kind: a conformance suite of flows (FLOWS.md "Conformance: flow tests"). Each case
 * names a flow — a file, or one written inline and checked here with positions in the suite —
 * plus messages and the expected trace. Every case builds its flow afresh when it runs, so
 * scripted cantrips and sandboxes never carry over from one case to the next.
 */
import { resolve as resolvePath } from "node:path";
import { ConfigError, SpellErrors, type SpellbookError } from "../../core/errors.js";
import type { Flow as FlowDoc, FlowTest } from "../../generated/flow.js";
import validateFlow from "../../generated/flow-validate.js";
import type { FlowTests } from "../../generated/flow-tests.js";
import validateFlowTests from "../../generated/flow-tests-validate.js";
import type { LoadOptions } from "../options.js";
import { schemaErrors } from "../validate.js";
import { compileFlow, type CompiledFlow } from "./flow-kind.js";
import { resolveFlow } from "./flow-resolve.js";
import type { DocumentKind, KindContext } from "./kind.js";

export interface FlowCase {
  test: FlowTest;
  /** file:line of the case. */
  location: string;
  /** A fresh flow for this case; the caller disposes it. */
  build(): Promise<CompiledFlow>;
}

export interface FlowSuite {
  cases: FlowCase[];
}

export const flowTestsKind: DocumentKind<FlowTests, FlowTests, FlowSuite> = {
  name: "flow-tests",
  validator: validateFlowTests,
  async resolve(doc, ctx) {
    const errors: SpellbookError[] = [];
    for (const [i, c] of doc.cases.entries()) {
      // A flow file is loaded, and checked, when its case runs; so is a flow the case expects to fail.
      if (typeof c.flow === "string" || "error" in c.expect) continue;
      const prefix = ["cases", i, "flow"];
      const inline = { kind: "flow", ...c.flow };
      const locate: KindContext["locate"] = (path, o) => ctx.locate([...prefix, ...path], o);
      const bad = schemaErrors(inline, locate, validateFlow);
      errors.push(
        ...(bad.length ? bad : (await resolveFlow(inline as FlowDoc, ctx, prefix)).errors),
      );
    }
    return { resolved: doc, errors };
  },
  compile(doc, ctx) {
    const cases = doc.cases.map((c, i): FlowCase => {
      const { flow, ...rest } = c;
      const test = rest as FlowTest;
      const location = `${ctx.file}:${ctx.locate(["cases", i]).line}`;
      return { test, location, build: () => buildFlow(flow, ["cases", i, "flow"], ctx) };
    });
    return Promise.resolve({ value: { cases }, errors: [] });
  },
};

/** Options of a case's run: the flow compiled for real, its casts' looms in memory. */
const runOptions = (ctx: KindContext): LoadOptions => ({
  ...(ctx.options as LoadOptions),
  validateOnly: false,
  loomPath: "memory",
  redactor: ctx.redactor,
});

async function buildFlow(
  flow: string | object,
  prefix: (string | number)[],
  ctx: KindContext,
): Promise<CompiledFlow> {
  const run: KindContext = { ...ctx, options: runOptions(ctx) };
  if (typeof flow === "string") {
    const loaded = await ctx.loadNested(resolvePath(ctx.baseDir, flow), runOptions(ctx));
    if (loaded.kind !== "flow")
      throw new ConfigError(
        "flow_tests",
        `${flow} is a kind: ${loaded.kind} document, not a flow`,
        ctx.locate(prefix),
      );
    return loaded.value as CompiledFlow;
  }
  const { resolved, errors } = await resolveFlow({ kind: "flow", ...flow }, run, prefix);
  const compiled = resolved ? await compileFlow(resolved, run) : { errors, value: undefined };
  if (compiled.errors.length || !compiled.value)
    throw new SpellErrors(compiled.errors.length ? compiled.errors : errors);
  return compiled.value;
}
