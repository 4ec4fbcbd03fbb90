import { describe, expect, it } from "vitest";
import { runFlowCase } from "../../src/conformance/flow-tests.js";
import { loadDocument } from "../../src/spell/index.js";
import type { FlowSuite } from "../../src/spell/kinds/flow-tests.js";

// One vitest test per case of flow-tests.yaml, the conformance suite of seed 003.
const suite = (await loadDocument("flow-tests.yaml", { loomPath: "memory" })).value as FlowSuite;

describe("flow-tests.yaml", () => {
  it("covers every section of the seed that has a MUST", () => {
    const sections = new Set(
      suite.cases.map((c) => /§(\d+(?:\.\d+)?)/.exec(c.test.rule ?? "")?.[1]),
    );
    for (const s of ["3.1", "3.2", "4", "5", "6.1", "6.2", "6.3", "6.4", "7", "8", "9"])
      expect(sections).toContain(s);
  });
  for (const c of suite.cases) {
    it(`${c.test.rule ?? "?"} ${c.test.name ?? ""} (${c.location})`, async () => {
      const r = await runFlowCase(c);
      expect(r.message).toBe("");
      expect(r.status).toBe("pass");
    });
  }
});
