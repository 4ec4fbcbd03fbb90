import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bwrapProblem } from "../../src/circle/mediums/bash/index.js";
import type { Circle } from "../../src/circle/circle.js";
import type { Turn } from "../../src/loom/records/index.js";
import { loadSpell } from "../../src/spell/index.js";

/** Why the sandboxed tests cannot run here, or undefined when bubblewrap works. */
export const noBwrap = bwrapProblem();
export const hasBwrap = noBwrap === undefined;

/** A folder with a spell's files (path → text); folders are made. */
export function spellDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "bash-spell-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

export interface BashSpell {
  commands: string[];
  gates?: string;
  wards?: string;
  circle?: string;
  files?: Record<string, string>;
}

/** A bash spell whose scripted LLM sends `commands`, one per turn; cast, with its turns. */
export async function castBash(spec: BashSpell) {
  const responses = spec.commands.map((c) => `    - code: ${JSON.stringify(c)}`).join("\n");
  const dir = spellDir({
    ...(spec.files ?? {}),
    "spell.yaml": `llm:
  provider: scripted
  responses:
${responses}
identity: { system_prompt: You run commands. }
circle:
  medium: bash
${spec.circle ?? ""}
  gates: ${spec.gates ?? "[done]"}
  wards: ${spec.wards ?? `[{ max_turns: ${spec.commands.length} }]`}
`,
  });
  const loaded = await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });
  const result = await loaded.cantrip!.cast("go");
  const turns: Turn[] = result.loom.turns();
  return { dir, result, turns, warnings: loaded.warnings };
}

/** One bash call (`command`) run straight through the circle's medium, in a session of its own. */
export async function bashStep(circle: Circle, command: string) {
  const session = circle.open({ entity: undefined, depth: 0 });
  try {
    const call = { id: "c1", name: "bash", arguments: JSON.stringify({ command }) };
    const scope = {
      entityId: "e",
      turnId: "t",
      signal: new AbortController().signal,
      requireDone: false,
    };
    const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    return await session.execute({ content: null, toolCalls: [call], usage }, scope);
  } finally {
    session.dispose();
  }
}
