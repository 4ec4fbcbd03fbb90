/** The `council` kind: a YAML document → the engine; its errors at file:line:col. */
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadDocument, loadDocumentText } from "../../src/spell/index.js";
import type { CouncilProgram } from "../../src/spell/kinds/council.js";

const SPELL = new URL("../../spells/council.yaml", import.meta.url).pathname;

describe("kind: council", () => {
  it("spells/council.yaml loads and runs offline: triage, two loops, early exit, synthesis", async () => {
    const loaded = await loadDocument(SPELL, { loomPath: "memory" });
    expect(loaded.kind).toBe("council");
    const program = loaded.value as CouncilProgram;
    const r = await program.engine.run(program.intent!);
    expect(r.loopsExecuted).toBe(2);
    expect(r.earlyExit).toBe(true);
    expect(r.finalResponse).toMatch(/^Run a six-month pilot/);
    expect(r.reasoningTrace?.[0]?.councilResponses).toHaveProperty("creative");
    const phases = program.loom
      .turns()
      .map((t) => (t.metadata["council"] as { phase: string }).phase);
    expect(phases).toEqual([
      "triage",
      ...["seat", "seat", "seat", "red_team"],
      ...["seat", "seat", "seat", "red_team", "judge"],
      "synthesis",
    ]);
  });

  it("a fixed triage: output makes no triage call", async () => {
    const doc = `kind: council
llm: { provider: scripted, responses: [{ content: A1 }, { content: B1 }, { content: A2 }, { content: B2 }, { content: R1 }] }
red_team: { llm: { provider: scripted, responses: [{ content: C1 }, { content: C2 }] } }
triage:
  llm: { provider: scripted, responses: [] }
  output:
    reconstructed_query: q
    complexity: complicated
    council:
      - { role: pragmatist, system_prompt: a }
      - { role: creative, system_prompt: b }
      - { role: red_team, system_prompt: c }
    loop_grammar: parallel
    loop_count: 2
    red_team_flavor: ethical
    allow_early_exit: false
    synthesis_instruction: s
`;
    const program = (await loadDocumentText(doc, "c.yaml", { loomPath: "memory" }))
      .value as CouncilProgram;
    const r = await program.engine.run("q");
    expect(r.finalResponse).toBe("R1"); // the synthesizer defaults to llm: its 5th reply
    expect(
      program.loom
        .turns()
        .some((t) => (t.metadata["council"] as { phase: string }).phase === "triage"),
    ).toBe(false);
  });

  it("delta: heuristic stops at loop 2 on unchanged positions without a judge call", async () => {
    const doc = `kind: council
llm: { provider: scripted, responses: [{ content: keep the plan }, { content: pilot first }, { content: keep the plan }, { content: pilot first }, { content: F }] }
red_team: { llm: { provider: scripted, responses: [{ content: C1 }, { content: C2 }] } }
judge: { llm: { provider: scripted, responses: [] } }
delta: { strategy: heuristic, threshold: 0.2 }
observability: true
triage:
  output:
    reconstructed_query: q
    complexity: complicated
    council: [{ role: pragmatist, system_prompt: a }, { role: creative, system_prompt: b }, { role: red_team, system_prompt: c }]
    loop_grammar: parallel
    loop_count: 4
    red_team_flavor: logical
    synthesis_instruction: s
`;
    const program = (await loadDocumentText(doc, "h.yaml", { loomPath: "memory" }))
      .value as CouncilProgram;
    const r = await program.engine.run("q");
    expect([r.loopsExecuted, r.earlyExit, r.finalResponse]).toEqual([2, true, "F"]);
    expect(r.reasoningTrace?.map((l) => l.deltaDetected)).toEqual([true, false]);
  });

  it("triage rules broken in the document are errors in the brief's words, at file:line:col", async () => {
    const doc = `kind: council
llm: scripted/x
triage:
  output:
    reconstructed_query: q
    complexity: complex
    short_circuit_allowed: true
    council:
      - { role: pragmatist, system_prompt: a }
      - { role: red_team, system_prompt: "  " }
    loop_grammar: parallel
    loop_count: 9
    red_team_flavor: nice
    synthesis_instruction: s
`;
    const err = (await loadDocumentText(doc, "c.yaml").catch((e: unknown) => e)) as SpellErrors;
    expect(err).toBeInstanceOf(SpellErrors);
    expect(err.errors.map((e) => e.format())).toEqual([
      'c.yaml:6:17: triage.output.complexity: short_circuit_allowed may only be true when complexity is "simple" (is "complex")',
      "c.yaml:9:7: triage.output.council: council must have 3-5 seats (has 2)",
      expect.stringMatching(
        /^c\.yaml:10:\d+: triage\.output\.council\.1\.system_prompt: must be a non-blank string$/,
      ),
      "c.yaml:12:17: triage.output.loop_count: loop_count must be an integer from 2 to 5 (is 9)",
      expect.stringMatching(
        /^c\.yaml:13:22: triage\.output\.red_team_flavor: unknown value "nice"/,
      ),
    ]);
  });

  it("an unknown role is one error at its place, naming the role and the allowed ones", async () => {
    const doc = (roles: string[]) => `kind: council
llm: scripted/x
triage:
  output:
    reconstructed_query: q
    complexity: complex
    council:
${roles.map((r) => `      - { role: ${r}, system_prompt: p }`).join("\n")}
    loop_grammar: parallel
    loop_count: 2
    red_team_flavor: logical
    allow_early_exit: false
    synthesis_instruction: s
`;
    const errorsOf = async (roles: string[]) =>
      (
        (await loadDocumentText(doc(roles), "c.yaml").catch((e: unknown) => e)) as SpellErrors
      ).errors.map((e) => e.format());
    const allowed = "(allowed: synthesizer, domain_expert, pragmatist, creative, red_team)";
    expect(await errorsOf(["domain_expert", "pragmatist", "redteam"])).toEqual([
      `c.yaml:10:17: triage.output.council.2.role: unknown role "redteam"; did you mean "red_team"? ${allowed}`,
    ]);
    expect(await errorsOf(["pragmatist", "wizard", "red_team"])).toEqual([
      `c.yaml:9:17: triage.output.council.1.role: unknown role "wizard" ${allowed}`,
    ]);
    // Two red teams is still its own error: only a missing one can be the unknown role's.
    expect(await errorsOf(["red_team", "wizard", "red_team"])).toEqual([
      'c.yaml:8:7: triage.output.council: council must have exactly one seat with role "red_team" (has 2)',
      `c.yaml:9:17: triage.output.council.1.role: unknown role "wizard" ${allowed}`,
    ]);
  });

  it("a role's bad LLM spec is an error at its place", async () => {
    const err = (await loadDocumentText(
      "kind: council\nllm: scripted/x\njudge: { llm: openai }\n",
      "c.yaml",
      {
        env: {},
      },
    ).catch((e: unknown) => e)) as SpellErrors;
    expect(err.errors[0]?.format()).toMatch(/^c\.yaml:3:15: the openai provider needs a model/);
  });
});

describe("kind: council without llm:", () => {
  it("defaults to OpenRouter, whose missing key is said once, before any call", async () => {
    const err = (await loadDocumentText("kind: council\nintent: q\n", "c.yaml", { env: {} }).catch(
      (e: unknown) => e,
    )) as SpellErrors;
    expect(err.errors.map((e) => e.format())).toEqual([
      expect.stringMatching(
        /^c\.yaml:1:1: the openrouter provider needs an API key: set OPENROUTER_API_KEY/,
      ),
    ]);
  });
});
