/**
 * Spells to serve over MCP (issue 26) and the checks both transports share: the SDK's own client
 * against `spell mcp` on stdio and against `/mcp` of `spell serve`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TYPED_SPELL = `name: summarize
description: Summarizes a file in so many words.
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: { words: 7 } } }] }] }
identity: {}
inputs:
  type: object
  properties: { path: { type: string }, words: { type: integer, minimum: 10, default: 100 } }
  required: [path]
intent: "Summarize {{path}} in {{words}} words."
output_schema: { type: object, properties: { words: { type: integer } }, required: [words] }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

/**
 * Two turns (progress). Each call is a cast of the served cantrip and starts the script again
 * (issue 45): a call cancelled at its first progress is cut during the echo's 500 ms.
 */
export const SLOW_SPELL = `name: slow
llm:
  provider: scripted
  responses:
    - { tool_calls: [{ gate: echo, args: { text: one } }] }
    - { tool_calls: [{ gate: done, args: { answer: finished } }] }
    - { tool_calls: [{ gate: wait, args: {} }] }
identity: {}
circle:
  # echo takes 500 ms: turn 1's progress notification leaves well before the result, never in
  # the same chunk (the SDK's client drops a notification read in the result's chunk).
  gates: [done, { name: echo, behavior: { delay_ms: 500, result: one } }, { name: wait, behavior: { delay_ms: 60000, result: waited } }]
  wards: [{ max_turns: 4 }]
`;

export function spellDir(): { dir: string; write: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-serve-"));
  return {
    dir,
    write: (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
  };
}
