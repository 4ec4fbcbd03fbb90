import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACTIONS, FLOW_WARDS, TAPE_SHAPES } from "../../src/flows/index.js";

const schema = JSON.parse(readFileSync("schemas/flow.schema.json", "utf8")) as {
  $defs: Record<
    string,
    { properties: Record<string, { enum?: string[]; items?: { enum?: string[] } }> }
  >;
};

describe("schemas/flow.schema.json and the routes runtime do not drift", () => {
  it("ward names", () => {
    expect(Object.keys(schema.$defs["ward"]!.properties).sort()).toEqual(
      Object.keys(FLOW_WARDS).sort(),
    );
  });
  it("tape shapes", () => {
    expect(schema.$defs["tape"]!.properties["shape"]!.enum).toEqual([...TAPE_SHAPES]);
  });
  it("actions, for fixed receivers and sender filters", () => {
    const upper = (xs: string[] | undefined) =>
      [...new Set((xs ?? []).map((x) => x.toUpperCase()))].sort();
    expect(upper(schema.$defs["receiver"]!.properties["action"]!.enum)).toEqual(
      [...ACTIONS].sort(),
    );
    const on = schema.$defs["sender"]!.properties["on"] as unknown as {
      properties: { actions: { items: { enum: string[] } } };
    };
    expect(upper(on.properties.actions.items.enum)).toEqual([...ACTIONS].sort());
  });
});
