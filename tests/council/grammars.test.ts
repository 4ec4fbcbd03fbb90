/** Each grammar's message assembly, message by message, against the brief's §2.4. */
import { describe, expect, it } from "vitest";
import { Crucible } from "../../src/spell/crucible.js";
import {
  RED_TEAM_BASE_FRAME,
  RED_TEAM_FLAVORS,
} from "../../src/council/prompts/red-team-prompts.js";
import { INSTRUCTIONS } from "../../src/council/seats.js";
import { asked, scripted, triageJson } from "./helpers.js";

const Q = "Should we adopt a four-day week?";
const EXPERT = "You are a labour economist.";
const PRAG = "You run operations at a mid-size firm.";
const LOGICAL = `${RED_TEAM_BASE_FRAME}\n\n${RED_TEAM_FLAVORS.logical}`;

function council(grammar: string, seats: string[], red: string[], flavor = "logical") {
  const seatLLM = scripted("seats", seats);
  const redTeam = scripted("red", red);
  const synth = scripted("synth", ["FINAL"]);
  const engine = new Crucible({
    triage: triageJson({ loop_grammar: grammar, red_team_flavor: flavor }),
    llms: { default: seatLLM, redTeam, synthesizer: synth },
    observability: true,
  });
  return { engine, seatLLM, redTeam, synth };
}

describe("PARALLEL", () => {
  it("loop 1: [system: seat] [user: query]; loop N: + [assistant: prior positions] [user: critique + revision]", async () => {
    const c = council("parallel", ["E1", "P1", "E2", "P2"], ["C1", "C2"]);
    const result = await c.engine.run("four day week?");
    expect(result.finalResponse).toBe("FINAL");
    const prior = "[domain_expert]\nE1\n\n[pragmatist]\nP1";
    const revise = `RED TEAM CRITIQUE:\nC1\n\n${INSTRUCTIONS.revision}`;
    expect(asked(c.seatLLM)).toEqual([
      [sys(EXPERT), usr(Q)],
      [sys(PRAG), usr(Q)],
      [sys(EXPERT), usr(Q), asst(prior), usr(revise)],
      [sys(PRAG), usr(Q), asst(prior), usr(revise)],
    ]);
    expect(asked(c.redTeam)).toEqual([
      [sys(LOGICAL), usr(`QUERY:\n${Q}\n\nCOUNCIL POSITIONS:\n${prior}`)],
      [
        sys(LOGICAL),
        usr(`QUERY:\n${Q}\n\nCOUNCIL POSITIONS:\n[domain_expert]\nE2\n\n[pragmatist]\nP2`),
      ],
    ]);
    expect(result.reasoningTrace?.map((r) => r.councilResponses)).toEqual([
      { domain_expert: "E1", pragmatist: "P1" },
      { domain_expert: "E2", pragmatist: "P2" },
    ]);
  });
});

describe("SEQUENTIAL", () => {
  it("first seat drafts from the base context; each next seat revises the draft with the running critique", async () => {
    const c = council(
      "sequential",
      ["D1", "D2", "D3", "D4"],
      ["A1", "A2", "A3", "A4"],
      "feasibility",
    );
    const result = await c.engine.run("q");
    const revise = (draft: string, critique: string) =>
      usr(
        `${Q}\n\nCURRENT DRAFT:\n${draft}\n\nRED TEAM CRITIQUE:\n${critique}\n\n${INSTRUCTIONS.sequentialRevision}`,
      );
    expect(asked(c.seatLLM)).toEqual([
      [sys(EXPERT), usr(Q)],
      [sys(PRAG), revise("D1", "A1")],
      [sys(EXPERT), revise("D2", "A2")], // loop 2 starts from loop 1's final draft and critique
      [sys(PRAG), revise("D3", "A3")],
    ]);
    const fea = `${RED_TEAM_BASE_FRAME}\n\n${RED_TEAM_FLAVORS.feasibility}`;
    expect(asked(c.redTeam)).toEqual([
      [sys(fea), usr(`QUERY:\n${Q}\n\nDRAFT (by domain_expert):\nD1`)],
      [
        sys(fea),
        usr(`QUERY:\n${Q}\n\nDRAFT (by pragmatist):\nD2\n\n${INSTRUCTIONS.finalCritique}`),
      ],
      [sys(fea), usr(`QUERY:\n${Q}\n\nDRAFT (by domain_expert):\nD3`)],
      [
        sys(fea),
        usr(`QUERY:\n${Q}\n\nDRAFT (by pragmatist):\nD4\n\n${INSTRUCTIONS.finalCritique}`),
      ],
    ]);
    expect(result.reasoningTrace?.map((r) => r.redTeamCritique)).toEqual(["A2", "A4"]);
  });
});

describe("DEBATE", () => {
  it("positions in parallel, the red team attacks, every deliberating seat defends", async () => {
    const c = council(
      "debate",
      ["E1", "P1", "ED1", "PD1", "E2", "P2", "ED2", "PD2"],
      ["ATK1", "ATK2"],
      "steelman",
    );
    const result = await c.engine.run("q");
    const defend = (pos: string, atk: string) =>
      usr(`YOUR PRIOR POSITION:\n${pos}\n\nRED TEAM ATTACK:\n${atk}\n\n${INSTRUCTIONS.defense}`);
    const defenses1 = "[domain_expert]\nED1\n\n[pragmatist]\nPD1";
    const revise = usr(`RED TEAM CRITIQUE:\nATK1\n\n${INSTRUCTIONS.revision}`);
    expect(asked(c.seatLLM)).toEqual([
      [sys(EXPERT), usr(Q)],
      [sys(PRAG), usr(Q)],
      [sys(EXPERT), defend("E1", "ATK1")],
      [sys(PRAG), defend("P1", "ATK1")],
      [sys(EXPERT), usr(Q), asst(defenses1), revise],
      [sys(PRAG), usr(Q), asst(defenses1), revise],
      [sys(EXPERT), defend("E2", "ATK2")],
      [sys(PRAG), defend("P2", "ATK2")],
    ]);
    const steel = `${RED_TEAM_BASE_FRAME}\n\n${RED_TEAM_FLAVORS.steelman}`;
    expect(asked(c.redTeam)[0]).toEqual([
      sys(steel),
      usr(
        `QUERY:\n${Q}\n\nCOUNCIL POSITIONS:\n[domain_expert]\nE1\n\n[pragmatist]\nP1\n\n${INSTRUCTIONS.debateAttack}`,
      ),
    ]);
    expect(result.reasoningTrace?.[1]?.councilResponses).toEqual({
      domain_expert: "ED2",
      pragmatist: "PD2",
    });
  });
});

describe("synthesis", () => {
  it("is one user message: the brief's prompt with every loop's positions and critiques", async () => {
    const c = council("parallel", ["E1", "P1", "E2", "P2"], ["C1", "C2"]);
    await c.engine.run("four day week?");
    const [messages] = asked(c.synth);
    expect(messages).toHaveLength(1);
    const text = messages![0]!.content!;
    expect(messages![0]!.role).toBe("user");
    expect(text).toContain("ORIGINAL USER QUERY:\nfour day week?\n");
    expect(text).toContain(`RECONSTRUCTED QUERY (used by council):\n${Q}\n`);
    expect(text).toContain(
      "LOOP 1\n\n[domain_expert]\nE1\n\n[pragmatist]\nP1\n\n[red_team critique]\nC1",
    );
    expect(text).toContain("LOOP 2\n\n[domain_expert]\nE2");
    expect(text).toContain("SYNTHESIS INSTRUCTION:\nAnswer in three sentences.\n");
    expect(text.endsWith("Speak directly to the user as a unified voice.")).toBe(true);
  });
});

const sys = (content: string) => ({ role: "system", content });
const usr = (content: string) => ({ role: "user", content });
const asst = (content: string) => ({ role: "assistant", content });
