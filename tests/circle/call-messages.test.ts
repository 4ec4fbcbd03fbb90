// What a gate call whose arguments are not JSON is told: where they fail, never a quote of them.
import { describe, expect, it } from "vitest";
import { whereInvalid } from "../../src/circle/call-messages.js";

const told = (args: string): string => {
  try {
    JSON.parse(args);
  } catch (err) {
    return whereInvalid(err, args);
  }
  throw new Error("parsed");
};

describe("arguments that are not JSON", () => {
  it("an unexpected token is named without the text after it", () => {
    const said = told('{"a": x sk-test-abcdefghij}');
    expect(said).toMatch(/^Unexpected token/);
    expect(said).not.toContain("sk-test");
  });
  it("text that stops short ends too soon; text past the value is placed", () => {
    expect(told('{"a":')).toBe("it ends too soon");
    expect(told('{"a":1}}')).toBe("at character 8 of 8");
  });
});
