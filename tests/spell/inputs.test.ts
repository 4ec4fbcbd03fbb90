import { describe, expect, it } from "vitest";
import { castIntent, parseInputPairs, renderIntent } from "../../src/spell/inputs.js";

const spell = {
  inputs: {
    type: "object",
    properties: { path: { type: "string" }, words: { type: "integer", minimum: 10, default: 100 } },
    required: ["path"],
    additionalProperties: false,
  },
  intent: "Summarize {{path}} in {{words}} words.",
};

describe("inputs: (issue 26)", () => {
  it("fills defaults and substitutes the inputs into the intent", async () => {
    expect(await castIntent(spell, { inputs: { path: "README.md" } })).toBe(
      "Summarize README.md in 100 words.",
    );
    expect(await castIntent(spell, { inputs: { path: "a.md", words: 50 } })).toBe(
      "Summarize a.md in 50 words.",
    );
  });

  it("a bad input is a bad_input error naming the field", async () => {
    await expect(castIntent(spell, { inputs: { path: "a", words: 3 } })).rejects.toMatchObject({
      code: "bad_input",
      message: "input words: must be >= 10",
    });
    await expect(castIntent(spell, { inputs: {} })).rejects.toThrow(/input path: is required/);
    await expect(castIntent(spell, { inputs: { path: "a", other: 1 } })).rejects.toThrow(
      /input other: is not a known field/,
    );
    await expect(castIntent(spell, { inputs: { path: 7 } })).rejects.toThrow(
      /input path: must be string/,
    );
  });

  it("a value from an input is never read again as a template", async () => {
    const out = await castIntent(spell, { inputs: { path: "{{words}}", words: 12 } });
    expect(out).toBe("Summarize {{words}} in 12 words.");
    expect(renderIntent("{{a}}{{b}}", { a: "{{b}}", b: "x" })).toBe("{{b}}x");
  });

  it("a name that is no input stays as written; a spell without inputs: takes none", async () => {
    expect(renderIntent("{{nope}} {{ a }}", { a: [1] })).toBe("{{nope}} [1]");
    await expect(castIntent({ intent: "hi" }, { inputs: { x: 1 } })).rejects.toMatchObject({
      code: "bad_input",
    });
    expect(await castIntent({ intent: "hi" }, {})).toBe("hi");
    expect(await castIntent({ intent: "hi" }, { intent: "other" })).toBe("other");
  });

  it("--input pairs are read as the schema's types say", () => {
    expect(parseInputPairs(spell.inputs, ["path=x=y", "words=50"])).toEqual({
      path: "x=y",
      words: 50,
    });
    // Not a number: left as text, and the check names the field.
    expect(parseInputPairs(spell.inputs, ["words=many"])).toEqual({ words: "many" });
    expect(() => parseInputPairs(spell.inputs, ["novalue"])).toThrow(/key=value/);
  });
});
