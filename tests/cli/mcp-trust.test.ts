// An MCP server is trusted code that runs with the user's rights: `spell validate` says so for
// each `mcp` gate, at its file:line:col, and the spell is still valid.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { validateCommand } from "../../src/cli/validate.js";
import { io } from "../support/io.js";

describe("spell validate and MCP servers", () => {
  it("warns, for each mcp gate at its position, that the server is trusted code with the user's rights", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mcp-trust-")), "spell.yaml");
    writeFileSync(
      file,
      `llm: { provider: scripted, responses: [] }
identity: { system_prompt: You read notes. }
circle:
  gates:
    - done
    - mcp: { name: notes, command: node, args: [notes.mjs], tools: [read] }
    - mcp: { name: mail, command: node, args: [mail.mjs], tools: [send] }
  wards: [{ max_turns: 2 }]
`,
    );
    const o = io();
    expect(await validateCommand([file], o)).toBe(EXIT.ok);
    expect(o.out).toContain(": ok");
    const warnings = o.err.split("\n").filter((l) => l.includes("trusted code"));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /spell\.yaml:6:7: warning: the MCP server notes \(node\) is trusted code: it runs with your rights/,
    );
    expect(warnings[1]).toMatch(/spell\.yaml:7:7: warning: the MCP server mail \(node\)/);
  });
});
