import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { runCase } from "../../src/conformance/runner.js";
import { loadSpell, loadSpellText } from "../../src/spell/index.js";

const dir = () => mkdtempSync(join(tmpdir(), "spellbook-resolve-"));
const parent = (gate: string) =>
  `llm: scripted/x\nidentity: {}\ncircle:\n  gates:\n    - done\n    - ${gate}\n  wards: [{ max_turns: 3 }]\n`;

describe("the resolve stage", () => {
  it("a bad child spell is reported at load, at the parent's line and the child's file:line:col", async () => {
    const d = dir();
    writeFileSync(join(d, "child.yaml"), "llm: scripted/x\nidentity: {}\ncircel: {}\n");
    writeFileSync(join(d, "spell.yaml"), parent("call_entity: { spell: ./child.yaml }"));
    const err = await loadSpell(join(d, "spell.yaml"), { loomPath: "memory" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SpellErrors);
    const text = (err as SpellErrors).errors.map((e) => e.format()).join("\n");
    expect(text).toContain(`${join(d, "spell.yaml")}:6:7: call_entity: child spell`);
    expect(text).toContain(
      `${join(d, "child.yaml")}:3:1: circel: unknown key; did you mean "circle"?`,
    );
  });

  it("a missing child spell is an error at load, not at the first call", async () => {
    const d = dir();
    writeFileSync(join(d, "spell.yaml"), parent("call_entity: { spell: ./nope.yaml }"));
    await expect(loadSpell(join(d, "spell.yaml"), { loomPath: "memory" })).rejects.toThrow(
      /6:7: call_entity: child spell \.\/nope\.yaml does not exist/,
    );
  });

  it("a child spell loads with the parent's redactor: its secrets are redacted by the parent", async () => {
    const d = dir();
    writeFileSync(
      join(d, "child.yaml"),
      "llm: { provider: scripted, name: '${env:CHILD_SECRET}' }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\n",
    );
    writeFileSync(join(d, "spell.yaml"), parent("call_entity: { spell: ./child.yaml }"));
    const loaded = await loadSpell(join(d, "spell.yaml"), {
      loomPath: "memory",
      env: { CHILD_SECRET: "s3cr3t-child-value" },
    });
    expect(loaded.redactor.redact("x s3cr3t-child-value y")).not.toContain("s3cr3t-child-value");
  });

  it("file gate roots are resolved against the spell's folder at load", async () => {
    const d = dir();
    writeFileSync(join(d, "note.txt"), "hello");
    const text = parent("read: { root: . }").replace(
      "llm: scripted/x",
      "llm: { provider: scripted, responses: [{ tool_calls: [{ gate: read, args: { path: note.txt } }] }, { tool_calls: [{ gate: done, args: { answer: ok } }] }] }",
    );
    const loaded = await loadSpellText(text, join(d, "spell.yaml"), { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("read it");
    expect(result.loom.turns()[0]!.gate_calls[0]!.result).toBe("hello");
  });
});

describe("test gates", () => {
  it("are not gates of a spell's circle outside its tests", async () => {
    await expect(
      loadSpellText(parent("counter"), "s.yaml", { loomPath: "memory" }),
    ).rejects.toThrow(/unknown gate "counter"/);
  });

  it("are offered to the cases of the conformance runner", async () => {
    const result = await runCase({
      name: "counter in a case",
      setup: {
        llm: {
          responses: [
            { tool_calls: [{ gate: "counter", args: {} }] },
            { tool_calls: [{ gate: "done", args: { answer: "ok" } }] },
          ],
        },
        circle: { gates: ["done", "counter"], wards: [{ max_turns: 3 }] },
      },
      action: { cast: { intent: "count" } },
      expect: { result: "ok" },
      location: "resolve.test.ts",
    });
    expect(result).toMatchObject({ status: "pass" });
  });
});
