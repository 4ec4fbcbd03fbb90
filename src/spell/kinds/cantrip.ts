/** The `cantrip` kind: llm + identity + circle (+ loom, intent, tests) → a Cantrip. */
import type { Cantrip } from "../../core/cantrip.js";
import { ConfigError } from "../../core/errors.js";
import type { LLM } from "../../llm/contract.js";
import validateSpell from "../../generated/spell-validate.js";
import type { Spell } from "../../generated/spell.js";
import { compileSpell } from "../compile.js";
import type { LoadOptions } from "../options.js";
import type { DocumentKind, KindContext } from "./kind.js";

export const cantripKind: DocumentKind<Spell, Spell, Cantrip | undefined> = {
  name: "cantrip",
  validator: validateSpell,
  resolve: (doc) => Promise.resolve({ resolved: doc, errors: [] }),
  async compile(spell, ctx: KindContext) {
    const options = ctx.options as LoadOptions;
    const { cantrip, errors } = await compileSpell(spell, {
      file: ctx.file,
      baseDir: ctx.baseDir,
      locate: ctx.locate,
      env: ctx.env,
      redactor: ctx.redactor,
      warnings: ctx.warnings,
      llm: options.llm ?? (options.validateOnly ? validationLLM : undefined),
      llmSpec: options.llmSpec,
      warn: options.onWarning,
      validateOnly: options.validateOnly,
      loomPath: options.validateOnly ? "memory" : options.loomPath,
      defaultLoomPath: options.defaultLoomPath,
    });
    return { value: options.validateOnly ? undefined : cantrip, errors };
  },
};

/** Stands in for the LLM when a spell is only validated; it is never queried. */
const validationLLM: LLM = {
  name: "validation-only",
  query: () =>
    Promise.reject(new ConfigError("validate_only", "this spell was loaded for validation only")),
};
