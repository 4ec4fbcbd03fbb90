import { describe, expect, it } from "vitest";
import { accepts, compatible, parseNode, parseRoute } from "../../src/flows/index.js";
import { RouteGen, rng } from "./gen.js";

/**
 * The whole matrix of §4: every form on the gate side against every form on the state side.
 * Rows are gates, columns are states; 1 = accepts. Only `/all` accepts a state that is not plain.
 */
const STATES = ["A", "B", "C", "/all", "/oneof(A,B)", "/not(A)"];
const MATRIX: Record<string, string> = {
  //              A B C all oneof not
  A: "1 0 0 0 0 0",
  B: "0 1 0 0 0 0",
  "/all": "1 1 1 1 1 1",
  "/oneof(A,B)": "1 1 0 0 0 0",
  "/oneof(C)": "0 0 1 0 0 0",
  "/not(A)": "0 1 1 0 0 0",
  "/not(A,B)": "0 0 1 0 0 0",
  // nested lists, which the grammar allows, read through the same predicate
  "/oneof(A,/not(B,C))": "1 0 0 0 0 0",
  "/not(/oneof(A,B))": "0 0 1 0 0 0",
  "/oneof(/all)": "1 1 1 0 0 0",
};

describe("accepts(gate, state) — the matrix of §4", () => {
  const cells = Object.entries(MATRIX).flatMap(([gate, row]) =>
    row.split(" ").map((bit, i) => [gate, STATES[i]!, bit === "1"] as const),
  );
  it.each(cells)("accepts(%s, %s) is %s", (gate, state, want) => {
    expect(accepts(parseNode(gate), parseNode(state))).toBe(want);
  });

  it("covers every pair of forms (plain, /all, /oneof, /not) on both sides", () => {
    const form = (t: string) => (t.startsWith("/") ? t.slice(1).split("(")[0] : "plain");
    const pairs = new Set(cells.map(([g, s]) => `${form(g)}×${form(s)}`));
    for (const g of ["plain", "all", "oneof", "not"])
      for (const s of ["plain", "all", "oneof", "not"]) expect(pairs).toContain(`${g}×${s}`);
  });
});

describe("sender route compatibility (§6.4, FLOWS.md)", () => {
  it.each([
    ["greeted --> talking", "idle --[greeted]--> talking", true],
    ["talking", "idle --[greeted]--> talking", true],
    ["elsewhere", "idle --[greeted]--> talking", false],
    ["idle --> elsewhere", "idle --[greeted]--> talking", false],
    ["/all", "idle --> talking", true],
    ["idle", "/oneof(idle,busy) --> done", true],
    ["/not(idle)", "idle", false],
    ["/not(idle)", "busy", true],
    ["-->", "a --> b", true],
    // A gate on the sender's side meets a gate on the receiver's side when some state passes both.
    ["/oneof(A,B) --> X", "/oneof(A,B) --> X", true],
    ["/not(A) --> X", "/not(A) --> X", true],
    ["/oneof(B,C) --> X", "/oneof(A,B) --> X", true],
    ["/oneof(C) --> X", "/oneof(A,B) --> X", false],
    ["/not(A)", "/not(B)", true],
    ["/not(A,B)", "/oneof(A,B)", false],
    ["/not(A)", "/oneof(A,B)", true],
    ["/oneof(/not(A))", "/not(B)", true],
  ])("sender %j with receiver %j: %s", (sender, receiver, want) => {
    expect(compatible(parseRoute(sender), parseRoute(receiver))).toBe(want);
  });
});

describe("every route is compatible with itself (a sender on its receiver's exact route fires)", () => {
  it("holds for 2,000 generated routes, gates nested in any part", () => {
    const gen = new RouteGen(rng(2026));
    const failures: string[] = [];
    let gated = 0;
    for (let i = 0; i < 2_000; i++) {
      const written = gen.route();
      const route = parseRoute(written);
      if (/\/(oneof|not)\(/.test(written)) gated++;
      if (!compatible(route, route)) failures.push(JSON.stringify(route));
    }
    expect(gated).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  });
});
