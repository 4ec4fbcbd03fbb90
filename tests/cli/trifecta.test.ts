import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { validateCommand } from "../../src/cli/validate.js";
import { io } from "../support/io.js";

// A parent that reads files and delegates to a child spell whose bash runs with the network
// (sandbox: passthrough): the tree joins all three legs, though neither file alone says so.
const dir = mkdtempSync(join(tmpdir(), "trifecta-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
write(
  "net.yaml",
  "llm: { provider: scripted, responses: [] }\nidentity: { system_prompt: You fetch. }\ncircle:\n  medium: bash\n  sandbox: passthrough\n  gates: [done]\n  wards: [{ max_turns: 2 }]\n",
);
const parent = (extra = "") =>
  `${extra}llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: done, args: { answer: fine } }]
identity: { system_prompt: You look around. }
circle:
  gates:
    - done
    - read
    - call_entity: { spell: ./net.yaml }
  wards: [{ max_turns: 3 }]
intent: look
`;

describe("the lethal-trifecta warning on the command line", () => {
  it("spell validate prints it at file:line:col, naming the child's gate, and still says ok", async () => {
    const file = write("parent.yaml", parent());
    const o = io();
    expect(await validateCommand([file], o)).toBe(EXIT.ok);
    expect(o.out).toContain(": ok");
    expect(o.err).toMatch(/parent\.yaml:6:1: warning: lethal trifecta \(spec §4\.8\)/);
    expect(o.err).toMatch(/read: reads files under \., at .*parent\.yaml:9:7/);
    expect(o.err).toMatch(
      /bash: commands reach the network \(sandbox: passthrough\), at .*net\.yaml:5:/,
    );
  });

  it("spell run prints it once, before the cast", async () => {
    const file = write("parent-run.yaml", parent());
    const o = io();
    expect(await runCommand(file, { loom: "memory", quiet: true }, o)).toBe(EXIT.ok);
    expect(o.err.match(/lethal trifecta/g)).toHaveLength(1);
    expect(o.out).toContain("fine");
  });

  it("acknowledge: [lethal_trifecta] silences it; an unknown risk is a schema error", async () => {
    const ok = io();
    await validateCommand([write("ack.yaml", parent("acknowledge: [lethal_trifecta]\n"))], ok);
    expect(ok.err).not.toContain("lethal trifecta");
    const bad = io();
    const code = await validateCommand([write("bad.yaml", parent("acknowledge: [lethal]\n"))], bad);
    expect(code).toBe(EXIT.invalid);
    expect(bad.err).toMatch(/bad\.yaml:1:/);
  });
});
