import { describe, expect, it } from "vitest";
import { loadSuite, runCase } from "../../src/conformance/runner.js";

// The code medium and composition cases (issue 3), in the tests.yaml format, until they are
// merged into tests.yaml.
const suite = loadSuite("tests/cases/code.yaml");

describe("tests/cases/code.yaml", () => {
  for (const c of suite) {
    it(`${c.rule ?? "?"} ${c.name ?? ""} (${c.location})`, async () => {
      const r = await runCase(c);
      expect(r.message).toBe("");
      expect(r.status).toBe("pass");
    });
  }
});
