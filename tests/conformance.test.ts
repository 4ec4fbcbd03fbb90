import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSuite, runCase, runFile } from "../src/conformance/runner.js";

// One vitest test per case of tests.yaml; a skipped case carries its written reason.
const suite = loadSuite("tests.yaml");

describe("tests.yaml", () => {
  for (const c of suite) {
    const title = `${c.rule ?? "?"} ${c.name ?? ""} (${c.location})`;
    if (c.skip) {
      it.skip(`${title} — skipped: ${c.skip}`, () => {});
      continue;
    }
    it(title, async () => {
      const r = await runCase(c);
      expect(r.message).toBe("");
      expect(r.status).toBe("pass");
    });
  }
});

// Every spell's own tests run through the same runner.
const spells = ["grimoire", "spells"].flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => `${dir}/${f}`),
);

describe("spells' own tests", () => {
  for (const file of spells) {
    it(file, async () => {
      const results = await runFile(file);
      const failed = results.filter((r) => r.status === "fail");
      expect(failed.map((r) => `${r.name}: ${r.message}`)).toEqual([]);
    });
  }
});
