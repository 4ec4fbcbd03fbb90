import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpellText } from "../../src/spell/index.js";

const HEAD =
  "llm: scripted\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\nintent: go\n";

async function messages(text: string): Promise<string[]> {
  try {
    await loadSpellText(text, "s.yaml", { validateOnly: true });
  } catch (err) {
    expect(err).toBeInstanceOf(SpellErrors);
    return (err as SpellErrors).errors.map(
      (e) => `${e.position?.line}:${e.position?.col}: ${e.message}`,
    );
  }
  return [];
}

describe("duplicate keys (found in one pass, not by the YAML library's pairwise check)", () => {
  it("names the key, where it is, and where it was first written", async () => {
    expect(await messages(`${HEAD}intent: again\n`)).toEqual([
      '5:1: duplicate key "intent" (first written at line 4): map keys must be unique',
    ]);
  });

  it("in a nested mapping, among thousands of keys", async () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `    k${i}: ${i}\n`).join("");
    const text = `${HEAD}tests:\n  - name: t\n    expect:\n${keys}    k17: again\n`;
    expect(await messages(text)).toEqual([
      '5008:5: duplicate key "k17" (first written at line 25): map keys must be unique',
    ]);
  });

  it("1 and '1' are different keys, as YAML says", async () => {
    const text = `${HEAD}tests:\n  - name: t\n    action: { cast: { intent: go } }\n    expect: { 1: a, "1": b }\n`;
    expect((await messages(text)).join("\n")).not.toMatch(/duplicate/);
  });
});

describe("keys that are names of Object.prototype are named as themselves", () => {
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])("%s", async (key) => {
    const top = await messages(`${HEAD}${key}: x\n`);
    expect(top).toEqual([expect.stringMatching(new RegExp(`^5:1: ${key}: unknown key`))]);
    const nested = await messages(
      `llm: scripted\nidentity: { ${key}: 1 }\ncircle: { gates: [done, { ${key}: {} }], wards: [{ max_turns: 1 }] }\nintent: go\n`,
    );
    expect(nested.join("\n")).toContain(`identity.${key}: unknown key`);
    expect(nested.join("\n")).toContain(`unknown gate`);
    expect(nested.join("\n")).not.toMatch(/object Object|native code/);
  });
});
