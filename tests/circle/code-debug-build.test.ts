/**
 * The code medium on QuickJS's debug build (assertions on: a leaked handle or object aborts
 * the module when its runtime is freed). This file's process loads the engine in that build.
 */
import { describe, expect, it } from "vitest";
import { configureCodeEngine, loadCodeEngine } from "../../src/sandbox/index.js";
import { codeCantrip } from "./code-helpers.js";

configureCodeEngine({ build: "debug" });

describe("the debug build in the lanes' workers", () => {
  it("runs entities to the end and frees every sandbox without an assertion", async () => {
    for (let i = 0; i < 5; i++) {
      const { cantrip } = codeCantrip(
        [
          "var xs = [1, 2, 3]; var cyc = {}; cyc.self = cyc; cyc.g = echo; echo('x')",
          "try { missing() } catch (e) { console.log(e.stack) } Promise.resolve(1).then(() => xs.push(4)); loom.turns.length",
          "throw { weird: true }",
          "done(xs.length)",
        ],
        { state: { seed: { rows: [1, 2, 3] } } },
      );
      expect((await cantrip.cast("x")).result).toBe(4);
    }
    const stats = (await loadCodeEngine()).stats();
    expect(stats).toMatchObject({ live: 0, dead: 0 });
  });
});
