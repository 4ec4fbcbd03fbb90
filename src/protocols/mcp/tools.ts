/**
 * Spells as MCP tools (issue 26): one tool per spell, its input schema the spell's `inputs:` (or
 * one `intent` string), its output schema the spell's `output_schema:` — MCP's structured
 * content is an object, so a schema of another type is carried as `{ result: … }`.
 */
import type { LoadedSpell } from "../../spell/index.js";
import { callSchema } from "../../spell/inputs.js";

export interface SpellTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The value a cast returned → the tool's structured content. */
  structured(value: unknown): Record<string, unknown>;
  loaded: LoadedSpell;
}

/** MCP tool names: letters, digits, `_`, `-`, `.`; at most 128. */
function toolName(loaded: LoadedSpell): string {
  const base = (loaded.spell.name ?? loaded.file.replace(/^.*\//, "").replace(/\.ya?ml$/, ""))
    .replace(/[^A-Za-z0-9_.-]+/g, "_")
    .slice(0, 120);
  return base || "spell";
}

/** The tools of the spells, named uniquely (a second `summarize` is `summarize_2`). */
export function spellTools(spells: readonly LoadedSpell[]): SpellTool[] {
  const used = new Set<string>();
  return spells.map((loaded) => {
    let name = toolName(loaded);
    for (let i = 2; used.has(name); i++) name = `${toolName(loaded)}_${i}`;
    used.add(name);
    const out = loaded.spell.output_schema;
    const wrapped = out !== undefined && out["type"] !== "object";
    return {
      name,
      description:
        loaded.spell.description ?? `Casts the spell ${loaded.spell.name ?? loaded.file}.`,
      inputSchema: callSchema(loaded.spell),
      ...(out
        ? {
            outputSchema: wrapped
              ? { type: "object", properties: { result: out }, required: ["result"] }
              : { ...out },
          }
        : {}),
      structured: (value) =>
        wrapped ? { result: value } : ((value ?? {}) as Record<string, unknown>),
      loaded,
    };
  });
}
