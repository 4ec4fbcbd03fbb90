import { describe, expect, it } from "vitest";
import { flowLimits, parseNode, Tape } from "../../src/flows/index.js";

describe("tapes (§5)", () => {
  it.each([
    ["single", "a", "a"],
    ["single", undefined, null],
    ["many", ["b", "a", "b"], ["b", "a"]],
    ["index-single", { z: "a", y: "b" }, { y: "b", z: "a" }],
    ["index-many", { k: ["a", "/not(a)"], empty: [] }, { k: ["a", "/not(a)"] }],
  ] as const)("a %s tape written as %j reads back as %j", (shape, initial, want) => {
    expect(Tape.of(shape, initial).value()).toEqual(want);
  });

  it.each([
    ["single", ["a", "b"], /a single tape holds one node/],
    ["index-single", { k: ["a", "b"] }, /tape\.k: a index-single tape holds one node/],
    ["index-many", ["a"], /a index-many tape is a map of keys/],
    ["many", [""], /empty token/],
    ["many", ["a,,b"], /expected one node/],
    ["many", [3], /a node is a string/],
  ] as const)("a %s tape written as %j is refused", (shape, initial, error) => {
    expect(() => Tape.of(shape, initial as never)).toThrow(error);
  });

  it("lists entries by key then state text, and computes sorted deltas", () => {
    const before = Tape.of("index-many", { b: ["y", "x"], a: ["z"] });
    expect(before.entries().map((e) => `${e.key}:${e.text}`)).toEqual(["a:z", "b:x", "b:y"]);
    const after = before.copy();
    after.set("b", [parseNode("w"), parseNode("x")]);
    after.set("a", []);
    expect(after.deltaFrom(before)).toEqual([
      { key: "a", added: [], removed: ["z"] },
      { key: "b", added: ["w"], removed: ["y"] },
    ]);
    expect(before.value()).toEqual({ a: ["z"], b: ["y", "x"] });
  });
});

describe("flow limits (§9)", () => {
  it("compose by min over the defaults", () => {
    expect(
      flowLimits([{ max_handler_ms: 500 }, { max_handler_ms: 900 }, { max_tape_nodes: 5 }]),
    ).toEqual({
      maxMessageBytes: 1024 * 1024,
      maxHandlerMs: 500,
      maxTapeNodes: 5,
      maxMemoryMb: 64,
    });
  });
  it("refuse unknown wards and bad values", () => {
    expect(() => flowLimits([{ max_turns: 3 }])).toThrow(/unknown flow ward "max_turns"/);
    expect(() => flowLimits([{ max_tape_nodes: -1 }])).toThrow(/non-negative/);
  });
});
