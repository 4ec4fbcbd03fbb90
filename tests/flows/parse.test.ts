import { describe, expect, it } from "vitest";
import { parseNode, parseRoute, routeText, RouteSyntaxError } from "../../src/flows/index.js";
import { RouteGen, rng } from "./gen.js";

const canon = (s: string) => routeText(parseRoute(s));

describe("route grammar (seed 003 §3.1)", () => {
  it.each([
    ["A", "A"],
    ["A,B", "A, B"],
    ["  A ,  B  ", "A, B"],
    ["A --[ f ]--> B", "A --[f]--> B"],
    ["A,B --[ f, g ]--> X,Y", "A, B --[f, g]--> X, Y"],
    ["--[ f ]--> B", "--[f]--> B"],
    ["A --[ ]--> B", "A --[]--> B"],
    ["A --[f]-->", "A --[f]-->"],
    ["--[]-->", "--[]-->"],
    // the label-less arrow is shorthand for an empty label (FLOWS.md, decided ambiguity)
    ["A --> B", "A --[]--> B"],
    ["A -->", "A --[]-->"],
    ["--> B", "--[]--> B"],
    ["-->", "--[]-->"],
    ["/all", "/all"],
    ["/oneof( a , b )", "/oneof(a,b)"],
    ["/not(a,/oneof(b,c))", "/not(a,/oneof(b,c))"],
    ["/all --[ /not(x) ]--> done", "/all --[/not(x)]--> done"],
    // whitespace is ignored anywhere (§3.1), inside identifiers and arrows too
    ["i dle - -[ o k ]- -> d one", "idle --[ok]--> done"],
    ["_a1, B_2", "_a1, B_2"],
    // whitespace is Unicode's White_Space: NEL and NBSP are ignored; U+FEFF is not whitespace
    ["idle\u0085-->\u00a0done\u2028", "idle --[]--> done"],
  ])("%j canonicalizes to %j", (input, want) => {
    expect(canon(input)).toBe(want);
  });

  it("refuses U+FEFF (not Unicode whitespace) instead of deleting it", () => {
    expect(() => canon("id\ufeffle")).toThrow(/col 3/);
  });

  it("keeps node order as written (order never changes matching)", () => {
    expect(canon("B, A")).toBe("B, A");
  });

  it.each([
    ["", 1, "empty route"],
    ["   ", 4, "empty route"],
    ["A,,B", 3, "empty token"],
    ["A,", 3, "empty token"],
    [",A", 1, "empty token"],
    ["A, --> B", 4, "empty token"],
    ["A --[ f, ]--> B", 10, "empty token"],
    ["/oneof()", 8, "empty token"],
    ["/oneof(a,)", 10, "empty token"],
    ["/oneof(a", 9, 'expected "," or ")"'],
    ["/any", 1, "unknown token form"],
    ["/all(a)", 5, "/all takes no list"],
    ["1abc", 1, "expected an identifier"],
    ["A --[ f --> B", 9, 'expected "," or "]-->"'],
    ["A --[f]--> B --> C", 14, "expected"],
    ["A -> B", 3, 'expected "," "--[" or "-->"'],
    ["a-b", 2, "expected"],
  ])("%j is rejected at col %i", (input, col, reason) => {
    let err: unknown;
    try {
      parseRoute(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RouteSyntaxError);
    expect((err as RouteSyntaxError).column).toBe(col);
    expect((err as RouteSyntaxError).reason).toContain(reason);
    expect((err as RouteSyntaxError).code).toBe("route_syntax");
  });

  it("parses the parts of an arrow route", () => {
    const r = parseRoute("A,B --[ f ]--> X");
    expect(r.kind).toBe("arrow");
    if (r.kind !== "arrow") return;
    expect(r.source.map((n) => n.kind)).toEqual(["plain", "plain"]);
    expect(r.label).toEqual([{ kind: "plain", name: "f" }]);
    expect(r.target).toEqual([{ kind: "plain", name: "X" }]);
  });

  it("parses single nodes for tapes", () => {
    expect(parseNode(" /oneof(a, b) ")).toEqual({
      kind: "oneof",
      items: [
        { kind: "plain", name: "a" },
        { kind: "plain", name: "b" },
      ],
    });
    expect(() => parseNode("a, b")).toThrow(/one node/);
  });
});

describe("canonicalization round-trips (§3.2, §8 parsing conformance)", () => {
  const seeds = [1, 2, 3, 42, 2026];
  it.each(seeds)("parse ∘ serialize is stable over 500 generated routes (seed %i)", (seed) => {
    const gen = new RouteGen(rng(seed));
    for (let i = 0; i < 500; i++) {
      const written = gen.route();
      const once = canon(written);
      // the canonical form parses to the same structure and serializes to itself
      expect(parseRoute(once)).toEqual(parseRoute(written));
      expect(canon(once)).toBe(once);
      // whitespace never matters
      expect(canon(written.replace(/\s+/g, ""))).toBe(once);
      expect(once).not.toMatch(/^\s|\s$/);
    }
  });

  it("the generator covers every form (the property is not vacuous)", () => {
    const gen = new RouteGen(rng(7));
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const c = canon(gen.route());
      if (c.includes("/oneof(")) seen.add("oneof");
      if (c.includes("/not(")) seen.add("not");
      if (c.includes("/all")) seen.add("all");
      if (c.startsWith("--[")) seen.add("initial");
      if (c.endsWith("-->")) seen.add("terminal");
      if (!c.includes("-->")) seen.add("object");
      if (c.includes("--[]-->")) seen.add("no-label");
    }
    expect([...seen].sort()).toEqual(
      ["all", "initial", "no-label", "not", "object", "oneof", "terminal"].sort(),
    );
  });
});
