/**
 * A case's intent for each spell of an eval, by the one substitution (src/spell/inputs.ts): a
 * spell that declares `inputs:` takes the case's vars as its inputs through castIntent —
 * checked against its schema, defaults filled, put into the case's intent or else the spell's
 * own `intent:` template; a spell without `inputs:` casts the case's intent with its vars put
 * in by the same renderIntent, a `{{name}}` the vars do not give being an error.
 */
import { ConfigError, type SourcePosition, type SpellbookError } from "../../core/errors.js";
import type { Case } from "../../generated/eval.js";
import { castIntent, renderIntent, templateNames, type CallableSpell } from "../inputs.js";
import type { Path } from "../source.js";

/** A spell of the eval as a call sees it: its file, its `inputs:` and `intent:`. */
export interface EvalSpell {
  file: string;
  spell: CallableSpell;
}

export interface CaseIntents {
  /** The intent of the first spell (what the case is shown and filtered by). */
  intent: string;
  /** Each spell's intent by its file, when a spell declares `inputs:`; else every spell's is `intent`. */
  bySpell: Record<string, string> | undefined;
}

export async function caseIntents(
  c: Case,
  label: string,
  at: (path: Path) => SourcePosition,
  spells: readonly EvalSpell[],
  errors: SpellbookError[],
): Promise<CaseIntents | undefined> {
  const vars = c.vars ?? {};
  const said = new Set<string>();
  const fail = (code: "bad_input" | "missing_intent" | "eval_var", m: string, path: Path) => {
    if (said.has(m)) return;
    said.add(m);
    errors.push(new ConfigError(code, m, at(path)));
  };
  const bySpell: Record<string, string> = {};
  for (const { file, spell } of spells) {
    if (spell.inputs)
      try {
        bySpell[file] = await castIntent(spell, { inputs: vars, intent: c.intent });
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        fail(
          err.code === "missing_intent" ? "missing_intent" : "bad_input",
          `${label}: ${err.message}`,
          ["vars"],
        );
      }
    else if (c.intent === undefined)
      fail(
        "missing_intent",
        `${label}: no intent, and a spell declares no inputs: to fill one`,
        [],
      );
    else {
      for (const name of templateNames(c.intent))
        if (!Object.prototype.hasOwnProperty.call(vars, name))
          fail("eval_var", `${label}.intent: {{${name}}} is not among the case's vars`, ["intent"]);
      bySpell[file] = renderIntent(c.intent, vars);
    }
  }
  const first = spells[0] ? bySpell[spells[0].file] : undefined;
  if (first === undefined) return undefined;
  const typed = spells.some((s) => s.spell.inputs);
  return { intent: first, bySpell: typed ? bySpell : undefined };
}
