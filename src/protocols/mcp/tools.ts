/**
 * Spells as MCP tools (issue 26): one tool per spell, its input schema the spell's `inputs:` (or
 * one `intent` string), its output schema the spell's `output_schema:` — MCP's structured
 * content is an object, so a schema of another type is carried as `{ result: … }`. Each tool
 * is described redacted (issue 38): its name, description and schemas are built from what the
 * spell wrote, where a `${env:…}` secret may be.
 */
import type { LoadedSpell } from "../../spell/index.js";
import { callSchema } from "../../spell/inputs.js";
import { redactMessage, type Redact } from "../redact-out.js";

export interface SpellTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The value a cast returned → the tool's structured content. */
  structured(value: unknown): Record<string, unknown>;
  loaded: LoadedSpell;
}

/**
 * MCP tool names: letters, digits, `_`, `-`, `.`; at most 128. Made from the name redacted, and
 * redacted again once its characters are replaced (a secret could appear only then).
 */
function toolName(loaded: LoadedSpell, redact: Redact): string {
  const written = loaded.spell.name ?? loaded.file.replace(/^.*\//, "").replace(/\.ya?ml$/, "");
  const safe = (text: string) => text.replace(/[^A-Za-z0-9_.-]+/g, "_");
  const base = safe(redact(safe(redact(written)))).slice(0, 120);
  return base || "spell";
}

/** The tools of the spells, named uniquely (a second `summarize` is `summarize_2`), redacted. */
export function spellTools(spells: readonly LoadedSpell[], redact: Redact): SpellTool[] {
  const used = new Set<string>();
  return spells.map((loaded) => {
    const base = toolName(loaded, redact);
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    const out = loaded.spell.output_schema;
    const wrapped = out !== undefined && out["type"] !== "object";
    const description =
      loaded.spell.description ?? `Casts the spell ${loaded.spell.name ?? loaded.file}.`;
    return {
      name,
      ...redactMessage(
        {
          description,
          inputSchema: callSchema(loaded.spell),
          ...(out
            ? {
                outputSchema: wrapped
                  ? { type: "object", properties: { result: out }, required: ["result"] }
                  : { ...out },
              }
            : {}),
        },
        redact,
      ),
      structured: (value) =>
        wrapped ? { result: value } : ((value ?? {}) as Record<string, unknown>),
      loaded,
    };
  });
}
