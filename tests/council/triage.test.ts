/** §11 criteria 2 and 10: the triage agent's call, its JSON validated, every constraint said clearly. */
import { describe, expect, it } from "vitest";
import { Crucible } from "../../src/spell/crucible.js";
import { TRIAGE_SYSTEM_PROMPT } from "../../src/council/prompts/triage-prompt.js";
import { ModelError } from "../../src/core/errors.js";
import validateTriage from "../../src/generated/triage-output-validate.js";
import { triageCheck } from "../../src/spell/triage-rules.js";
import { asked, scripted, triageJson } from "./helpers.js";

function withTriageReply(reply: string) {
  const triage = scripted("triage", [reply]);
  const crucible = new Crucible({
    llms: { triage, default: scripted("seats", ["A", "B", "C", "D", "R1", "R2", "F"]) },
  });
  return { triage, crucible };
}

describe("triage agent", () => {
  it("sends the brief's system prompt and the raw query (plus context), and runs the council it emits", async () => {
    const triage = scripted("triage", [JSON.stringify(triageJson())]);
    const seats = scripted("s", ["E1", "P1", "E2", "P2"]);
    const engine = new Crucible({
      llms: {
        triage,
        default: seats,
        redTeam: scripted("r", ["R1", "R2"]),
        synthesizer: scripted("f", ["F"]),
      },
    });
    const r = await engine.run("4 day week??", { user_tier: "pro" });
    expect(r).toMatchObject({ finalResponse: "F", loopsExecuted: 2 });
    expect(asked(triage)).toEqual([
      [
        { role: "system", content: TRIAGE_SYSTEM_PROMPT },
        {
          role: "user",
          content: '4 day week??\n\nCONTEXT (metadata from the caller, JSON):\n{"user_tier":"pro"}',
        },
      ],
    ]);
    expect(TRIAGE_SYSTEM_PROMPT).toMatch(
      /^You are the triage agent for a multi-LLM deliberative council system\./,
    );
    expect(TRIAGE_SYSTEM_PROMPT).toContain('- Exactly one seat must have role "red_team"');
    // …and the brief's classification tables after it.
    expect(TRIAGE_SYSTEM_PROMPT).toContain(
      "| Factual lookup, single correct answer, no ambiguity | SIMPLE |",
    );
    expect(TRIAGE_SYSTEM_PROMPT).toContain(
      "| Known opposition exists, contested topic | STEELMAN |",
    );
  });

  it("a reply that is not JSON raises, and triage is not asked again", async () => {
    const { triage, crucible } = withTriageReply("```json\n{}\n```");
    const err = await crucible.run("q").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).code).toBe("triage_invalid_json");
    expect((err as ModelError).message).toMatch(/not a JSON object .*it is not retried/s);
    expect(triage.queries).toBe(1);
  });

  it("a schema violation raises with every broken rule named, no retry", async () => {
    const bad = triageJson({
      complexity: "complex",
      short_circuit_allowed: true,
      loop_count: 7,
      council: [
        { role: "red_team", system_prompt: "a" },
        { role: "red_team", system_prompt: "b" },
      ],
    });
    const { triage, crucible } = withTriageReply(JSON.stringify(bad));
    const err = (await crucible.run("q").catch((e: unknown) => e)) as ModelError;
    expect(err.code).toBe("triage_invalid");
    expect(err.message).toContain("council: council must have 3-5 seats (has 2)");
    expect(err.message).toContain(
      'council: council must have exactly one seat with role "red_team" (has 2)',
    );
    expect(err.message).toContain("loop_count: loop_count must be an integer from 2 to 5 (is 7)");
    expect(err.message).toContain(
      'complexity: short_circuit_allowed may only be true when complexity is "simple" (is "complex")',
    );
    expect(triage.queries).toBe(1);
  });

  it("a fixed triage output is checked when the engine is built", () => {
    expect(() => new Crucible({ triage: triageJson({ loop_count: 1 }) })).toThrow(
      /fixed triage output is invalid: loop_count/,
    );
  });
});

describe("the council's check finds a problem exactly when the schema does", () => {
  const seat = (role: string, extra: Record<string, unknown> = {}) => ({
    role,
    system_prompt: "p",
    ...extra,
  });
  const cases: [string, unknown][] = [
    ["valid", triageJson()],
    [
      "valid, 5 seats and hints",
      triageJson({
        council: [
          seat("synthesizer"),
          seat("creative", { model_hint: "x/y" }),
          seat("pragmatist", { model_hint: null }),
          seat("domain_expert"),
          seat("red_team"),
        ],
      }),
    ],
    ["valid short-circuit", triageJson({ complexity: "simple", short_circuit_allowed: true })],
    ["not an object", [1, 2]],
    ["missing keys", { complexity: "simple" }],
    ["unknown key", triageJson({ verdict: "yes" })],
    ["2 seats", triageJson({ council: [seat("creative"), seat("red_team")] })],
    [
      "6 seats",
      triageJson({
        council: [
          seat("creative"),
          seat("creative"),
          seat("creative"),
          seat("creative"),
          seat("creative"),
          seat("red_team"),
        ],
      }),
    ],
    [
      "no red team",
      triageJson({ council: [seat("creative"), seat("pragmatist"), seat("synthesizer")] }),
    ],
    [
      "two red teams",
      triageJson({ council: [seat("creative"), seat("red_team"), seat("red_team")] }),
    ],
    ["loop_count 1", triageJson({ loop_count: 1 })],
    ["loop_count 6", triageJson({ loop_count: 6 })],
    ["loop_count 2.5", triageJson({ loop_count: 2.5 })],
    ["short-circuit when complex", triageJson({ short_circuit_allowed: true })],
    ["unknown grammar", triageJson({ loop_grammar: "vote" })],
    ["unknown flavor", triageJson({ red_team_flavor: "nice" })],
    ["unknown complexity", triageJson({ complexity: "easy" })],
    ["unknown role", triageJson({ council: [seat("judge"), seat("creative"), seat("red_team")] })],
    [
      "blank prompt",
      triageJson({
        council: [seat("creative", { system_prompt: "  " }), seat("pragmatist"), seat("red_team")],
      }),
    ],
    ["blank query", triageJson({ reconstructed_query: "" })],
    [
      "hint not a string",
      triageJson({
        council: [seat("creative", { model_hint: 3 }), seat("pragmatist"), seat("red_team")],
      }),
    ],
    [
      "seat extra key",
      triageJson({
        council: [seat("creative", { temperature: 1 }), seat("pragmatist"), seat("red_team")],
      }),
    ],
    ["flag not boolean", triageJson({ allow_early_exit: "yes" })],
  ];
  it.each(cases)("%s", (_name, value) => {
    expect(triageCheck(value).length === 0).toBe(validateTriage(value));
  });
});
