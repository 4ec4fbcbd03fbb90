import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFile } from "../../src/conformance/runner.js";

const root = join(import.meta.dirname, "../..");

describe("flow tests through the spell test runner", () => {
  it("runs a flow document's tests: spells/greeter-flow.yaml", async () => {
    const results = await runFile(join(root, "spells/greeter-flow.yaml"));
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const r of results)
      expect({ name: r.name, status: r.status, message: r.message }).toMatchObject({
        status: "pass",
      });
  });

  it("fails a case whose trace differs, saying which field and what came instead", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flowt-"));
    const file = join(dir, "suite.yaml");
    writeFileSync(
      file,
      [
        "kind: flow-tests",
        "cases:",
        "  - name: wrong action",
        "    flow: { tape: { initial: [a] }, receivers: [{ route: a --> b, action: move }] }",
        "    messages: [m]",
        "    expect: { trace: [{ receivers: [{ route: 'a --[]--> b', key: null, state: a, action: STAY, trigger: null }] }] }",
        "  - name: wrong tape",
        "    flow: { tape: { initial: [a] }, receivers: [{ route: a --> b, action: move }] }",
        "    messages: [m]",
        "    expect: { tape: [a] }",
        "  - name: right",
        "    flow: { tape: { initial: [a] }, receivers: [{ route: a --> b, action: move }] }",
        "    messages: [m, m]",
        "    expect: { tape: [b], trace: [{ dropped: null, tape: [{ key: null, added: [b], removed: [a] }] }, { receivers: [] }] }",
        "",
      ].join("\n"),
    );
    const results = await runFile(file);
    expect(results.map((r) => r.status)).toEqual(["fail", "fail", "pass"]);
    expect(results[0]!.message).toMatch(
      /^trace\[0\]\.receivers: expected .*"STAY".*, got .*"MOVE"/,
    );
    expect(results[1]!.message).toBe('tape: expected ["a"], got ["b"]');
    expect(results[0]!.location).toBe(`${file}:3`);
  });

  it("reports an inline flow's errors at their position in the suite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flowt-"));
    const file = join(dir, "suite.yaml");
    writeFileSync(
      file,
      "kind: flow-tests\ncases:\n  - flow: { receivers: [{ route: 'a -> b', action: move }] }\n    messages: []\n    expect: { tape: [] }\n",
    );
    await expect(runFile(file)).rejects.toThrow(
      /suite\.yaml:3:\d+: cases\.0\.flow\.receivers\.0\.route: route "a -> b": col 3/,
    );
  });
});
