/**
 * The TriageOutput rules live once, in schemas/triage-output.schema.json: the loader compiles
 * the schema's validator and hands it to the council runtime, which has no rules of its own.
 * A rule changed in the schema alone changes what the council accepts.
 */
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { CouncilEngine } from "../../src/council/engine.js";
import { Crucible } from "../../src/spell/crucible.js";
import { triageCheckOf } from "../../src/spell/triage-rules.js";
import { scripted, triageJson } from "./helpers.js";

type Schema = { properties: { loop_count: { maximum: number } } };
const SCHEMA = new URL("../../schemas/triage-output.schema.json", import.meta.url);

/** The triage schema with one rule changed, compiled as scripts/gen.mjs compiles it. */
function compiledWithMaxLoops(maximum: number) {
  const schema = JSON.parse(readFileSync(SCHEMA, "utf8")) as Schema;
  schema.properties.loop_count.maximum = maximum;
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, verbose: true });
  return triageCheckOf(ajv.compile(schema));
}

describe("the council's triage rules are the schema's", () => {
  const sixLoops = triageJson({ loop_count: 6 });

  it("as the schema stands, a fixed triage output of 6 loops is refused", () => {
    expect(() => new Crucible({ triage: sixLoops })).toThrow(
      /fixed triage output is invalid: loop_count: loop_count must be an integer from 2 to 5/,
    );
  });

  it("with the schema's maximum raised to 6, the same output is accepted and run for 6 loops", async () => {
    const seats = scripted(
      "s",
      Array.from({ length: 12 }, (_, i) => `P${i}`),
    );
    const engine = new CouncilEngine(
      {
        triage: sixLoops,
        deltaStrategy: "heuristic",
        heuristicThreshold: 0,
        llms: {
          default: seats,
          redTeam: scripted("r", ["R1", "R2", "R3", "R4", "R5", "R6"]),
          synthesizer: scripted("f", ["F"]),
        },
      },
      compiledWithMaxLoops(6),
    );
    const r = await engine.run("q");
    expect(r.finalResponse).toBe("F");
    expect(r.loopsExecuted).toBe(6);
  });

  it("a triage reply is checked by the same injected rules", async () => {
    const reply = JSON.stringify(sixLoops);
    const refusing = new Crucible({
      llms: { triage: scripted("t", [reply]), default: scripted("d", []) },
    });
    await expect(refusing.run("q")).rejects.toThrow(/loop_count must be an integer from 2 to 5/);
  });
});
