import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gateRegistry } from "../../src/circle/gates/index.js";
import { mediumRegistry } from "../../src/circle/mediums/index.js";
import { wardKinds } from "../../src/core/wards.js";
import { providerRegistry } from "../../src/llm/registry.js";
import { testGates } from "../../src/conformance/test-gates.js";

const schema = JSON.parse(readFileSync("schemas/spell.schema.json", "utf8")) as {
  $defs: Record<string, { enum?: string[]; properties?: Record<string, { enum?: string[] }> }>;
};
const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("schema and registries do not drift", () => {
  it("providers", () => {
    expect(sorted(schema.$defs["llm_object"]!.properties!["provider"]!.enum!)).toEqual(
      sorted(Object.keys(providerRegistry)),
    );
  });
  it("mediums", () => {
    expect(sorted(schema.$defs["medium_name"]!.enum!)).toEqual(sorted(Object.keys(mediumRegistry)));
  });
  it("gates", () => {
    expect(sorted(schema.$defs["gate_name"]!.enum!)).toEqual(
      sorted([...Object.keys(gateRegistry), ...Object.keys(testGates)]),
    );
  });
  it("wards", () => {
    expect(sorted(Object.keys(schema.$defs["ward"]!.properties!))).toEqual(
      sorted(Object.keys(wardKinds)),
    );
  });
});

describe("generated code", () => {
  it("is up to date with schemas/ (run npm run gen when this fails)", () => {
    expect(() =>
      execFileSync(process.execPath, ["scripts/gen.mjs", "--check"], { stdio: "pipe" }),
    ).not.toThrow();
  });
});
