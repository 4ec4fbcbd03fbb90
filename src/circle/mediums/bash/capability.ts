import type { ToolDefinition } from "../../../core/contract.js";
import type { Gate } from "../../gate.js";
import { DONE } from "../../gate-names.js";
import type { GateHost } from "../../medium.js";
import type { BashOptions } from "./options.js";

/** The single tool of a bash circle: one shell command per turn; the gates are commands on PATH. */
export const BASH_TOOL: ToolDefinition = {
  name: "bash",
  description:
    'Run one shell command (bash) in your sandboxed workspace. The circle\'s gates are commands on PATH; finish with: done "answer".',
  parameters: {
    type: "object",
    properties: { command: { type: "string", description: "The shell command to run." } },
    required: ["command"],
  },
};

function usage(gate: Gate): string {
  if (gate.name === DONE) return `done "answer"`;
  const props = Object.keys(gate.parameters.properties ?? {});
  const words = props.map((p) =>
    (gate.parameters.required ?? []).includes(p) ? `<${p}>` : `[${p}]`,
  );
  return `${[gate.name, ...words].join(" ")}   or   ${gate.name} '{"${props[0] ?? "key"}": …}'`;
}

/** The circle as the entity reads it (CIRCLE-11): where it is, what it may touch, its gate commands. */
export function capabilityText(circle: GateHost, options: BashOptions): string {
  const lines = [
    "You are in a bash circle: each turn, call the bash tool with one shell command. Its stdout, stderr and exit code are your next observation.",
    options.sandbox === "bwrap"
      ? `The command runs in a sandbox with no network; your workspace is the current folder (${options.writable ? "writable" : "read-only"}); /tmp is empty and yours for this command only.`
      : `The command runs on the host with no OS sandbox (passthrough) in the workspace folder (${options.writable ? "writable" : "meant read-only"}).`,
    "Gates are commands; their result is printed on stdout (an error on stderr, exit 1). Arguments are words, or one JSON object:",
  ];
  for (const gate of circle.gates.values()) lines.push(`  ${usage(gate)}   — ${gate.description}`);
  return lines.join("\n");
}
