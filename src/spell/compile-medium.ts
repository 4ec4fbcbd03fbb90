/**
 * The circle's medium (MEDIUM-1): the one medium a circle declares, by its name or another
 * runtime's name for it, from the registry; and the code medium carrying `circle.state`.
 */
import type { Medium } from "../circle/medium.js";
import { createCodeMedium } from "../circle/mediums/code/index.js";
import { mediumRegistry, normalizeMediumName } from "../circle/mediums/index.js";
import { ConfigError } from "../core/errors.js";
import { ownEntry } from "../core/own.js";
import type { Circle as CircleSpec } from "../generated/spell.js";
import type { Warning } from "./rewrite.js";
import { didYouMean } from "./suggest.js";
import type { Locate } from "./validate.js";

/**
 * Other runtimes' names for `circle.medium`: accepted when they agree, warned about, and marked
 * deprecated in schemas/spell.schema.json so editors stop offering them.
 */
export const MEDIUM_SYNONYMS = ["type", "circle_type", "backend", "sandbox_backend"] as const;

/** MEDIUM-1: one medium; other runtimes' names for it must agree with `medium`. */
export function resolveMedium(spec: CircleSpec, warnings: Warning[], locate: Locate): Medium {
  const declared: [string, string][] = [];
  for (const key of ["medium", ...MEDIUM_SYNONYMS] as const) {
    const value = spec[key];
    if (typeof value === "string") declared.push([key, normalizeMediumName(value)]);
  }
  const names = new Set(declared.map(([, v]) => v));
  if (names.size > 1) {
    throw new ConfigError(
      "conflicting_medium",
      `circle must declare exactly one medium; got ${declared.map(([k, v]) => `${k}: ${v}`).join(", ")}`,
    );
  }
  for (const [key] of declared) {
    if (key !== "medium") {
      warnings.push({
        message: `circle.${key} is an implementation-specific name; write medium:`,
        position: locate(["circle", key], { key: true }),
      });
    }
  }
  const name = [...names][0] ?? "conversation";
  const medium = ownEntry(mediumRegistry, name);
  if (!medium) {
    throw new ConfigError(
      "unknown_medium",
      `unknown medium ${JSON.stringify(name)}${didYouMean(name, Object.keys(mediumRegistry))}`,
    );
  }
  return medium;
}

export /** The circle's medium carrying `circle.state`; only the code medium has variables to put it in. */
function withState(medium: Medium, state: Readonly<Record<string, unknown>>): Medium {
  if (medium.name !== "code") {
    throw new ConfigError(
      "state_needs_code_medium",
      `circle.state needs the code medium (medium: code); this circle's medium is ${medium.name}`,
    );
  }
  return createCodeMedium({ state });
}
