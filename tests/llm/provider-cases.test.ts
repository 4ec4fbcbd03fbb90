import { describe, expect, it } from "vitest";
import { loadSuite, runCase } from "../../src/conformance/runner.js";

/** The conformance cases of issue 4, run through the real runner (to be merged into tests.yaml). */
describe("tests/cases/providers.yaml", () => {
  for (const c of loadSuite("tests/cases/providers.yaml")) {
    it(`[${c.rule}] ${c.name}`, async () => {
      const r = await runCase(c);
      expect(r.message).toBe("");
      expect(r.status).toBe("pass");
    });
  }
});
