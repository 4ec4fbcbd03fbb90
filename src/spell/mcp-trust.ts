import type { GateSpec } from "./resolve.js";
import type { Warning } from "./rewrite.js";
import type { Locate } from "./validate.js";

/**
 * An MCP server is a program of the user's choosing, run with the user's rights: it reads and
 * writes what the user can and reaches the network. Spellbook ends it (with every process it
 * started) and hides this process's environment from it, but walls off nothing else. Said once
 * at load, for each `mcp` gate, at the gate.
 */
export function mcpTrustWarnings(
  gates: readonly (GateSpec | undefined)[],
  locate: Locate,
): Warning[] {
  const out: Warning[] = [];
  gates.forEach((gate, i) => {
    if (gate?.name !== "mcp") return;
    const name = typeof gate.deps["name"] === "string" ? gate.deps["name"] : "(unnamed)";
    const command = typeof gate.deps["command"] === "string" ? gate.deps["command"] : "?";
    if (typeof gate.deps["url"] === "string") {
      out.push({
        message: `the MCP server ${name} (${gate.deps["url"]}) is trusted: it receives whatever the entity calls its tools with, and its answers enter the context; declare only servers you trust`,
        position: locate(["circle", "gates", i]),
      });
      return;
    }
    out.push({
      message: `the MCP server ${name} (${command}) is trusted code: it runs with your rights (it can read and write your files and reach the network); declare only servers you trust`,
      position: locate(["circle", "gates", i]),
    });
  });
  return out;
}
