import { describe, expect, it } from "vitest";
import { CouncilCalls } from "../../src/council/calls.js";
import {
  HeuristicDelta,
  LlmJudgeDelta,
  JUDGE_REMINDER,
  JUDGE_SYSTEM,
  parseVerdict,
  textDistance,
} from "../../src/council/delta.js";
import type { CouncilEvent } from "../../src/council/events.js";
import { councilProgress } from "../../src/cli/council-progress.js";
import { Redactor } from "../../src/core/redact.js";
import { asked, scripted } from "./helpers.js";

const at = () => ({ loop: 2, calls: new CouncilCalls(undefined, "c") });

describe("llm_judge", () => {
  it("reads the first word, stripped of markup, in any case; never searches for a YES inside", () => {
    const yes = ["YES", "yes", "Yes, they changed.", "**YES**", "> Yes", "`yes`", "# YES."];
    const no = [" NO. ", "No", "**NO**", "No, nothing material changed.", "_no_", '"NO"', "NO!"];
    expect(yes.map(parseVerdict)).toEqual(yes.map(() => true));
    expect(no.map(parseVerdict)).toEqual(no.map(() => false));
    for (const reply of ["NOT YES", "Mostly yes", "", "Y", "**", "Yesterday", "I think so. YES"])
      expect(parseVerdict(reply), reply).toBeNull();
  });

  it("asks the brief's question and returns the verdict", async () => {
    const judge = scripted("judge", ["NO"]);
    const changed = await new LlmJudgeDelta(judge).detect({ a: "x" }, { a: "y" }, at());
    expect(changed).toBe(false);
    const [messages] = asked(judge);
    expect(messages![0]).toEqual({ role: "system", content: JUDGE_SYSTEM });
    expect(messages![1]!.content).toBe(
      "Did positions materially change?\n\nPRIOR:\n[a]\nx\n\nCURRENT:\n[a]\ny\n\nAnswer YES if substantive changes occurred. Answer NO if changes are only cosmetic.",
    );
  });

  it("no prior (loop 1) is a change, without a call", async () => {
    const judge = scripted("judge", []);
    expect(await new LlmJudgeDelta(judge).detect(null, { a: "y" }, at())).toBe(true);
    expect(judge.queries).toBe(0);
  });

  it("a reply that is neither is asked again once with a reminder, then counts as a change with a warning", async () => {
    const judge = scripted("judge", ["Mostly yes", "YES"]);
    expect(await new LlmJudgeDelta(judge).detect({ a: "x" }, { a: "y" }, at())).toBe(true);
    expect(asked(judge)[1]!.slice(2)).toEqual([
      { role: "assistant", content: "Mostly yes" },
      { role: "user", content: JUDGE_REMINDER },
    ]);
    const events: CouncilEvent[] = [];
    const calls = new CouncilCalls(undefined, "c", (e) => events.push(e));
    const stubborn = scripted("judge", ["I think they did", "I think so"]);
    const changed = await new LlmJudgeDelta(stubborn).detect(
      { a: "x" },
      { a: "y" },
      { loop: 2, calls },
    );
    expect(changed).toBe(true); // never a failure: the loop goes on
    const warnings = events.filter((e) => e.type === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ type: "warning" });
    expect(warnings[0]).toMatchObject({ reply: "I think so" });
    expect((warnings[0] as { message: string }).message).toMatch(
      /judge .*loop 2.*counted as a change/,
    );
  });

  it("the warning's quoted reply is redacted before it is shortened: no half secret is printed", async () => {
    const secret = "judge-echoed-secret-0123456789abcdef";
    const redactor = new Redactor();
    redactor.add(secret);
    let printed = "";
    const progress = councilProgress(
      (t) => (printed += t),
      (t) => redactor.redact(t),
    );
    const calls = new CouncilCalls(undefined, "c", progress);
    // The secret straddles the 200th character: a cut before redacting keeps its first half.
    const reply = `${"m".repeat(190)} ${secret} and more`;
    const judge = scripted("judge", [reply, reply]);
    expect(await new LlmJudgeDelta(judge).detect({ a: "x" }, { a: "y" }, { loop: 2, calls })).toBe(
      true,
    );
    expect(printed).not.toContain(secret.slice(0, 9));
    expect(printed).toMatch(/counted as a change; it answered "m{190} \[REDACTED/);
  });
});

describe("heuristic", () => {
  it("measures text distance from 0 (same) to 1 (nothing shared)", () => {
    expect(textDistance("the cat sat on the mat", "The cat sat on the mat.")).toBe(0);
    expect(textDistance("alpha beta gamma", "delta epsilon zeta")).toBe(1);
    const d = textDistance("we should adopt the plan now", "we should adopt the plan later");
    expect(d).toBeGreaterThan(0);
    expect(d).toBeLessThan(0.5);
  });

  it("by default a position changed when its distance passes 0.2, as documented", async () => {
    // 201 words, 200 bigrams: replacing k words far apart removes 2k bigrams, a distance of k/100.
    const words = Array.from({ length: 201 }, (_, i) => `w${i}`);
    const replaced = (k: number) =>
      words.map((w, i) => (i % 5 === 2 && i < 5 * k ? `changed${i}` : w)).join(" ");
    const prior = { a: words.join(" ") };
    expect(textDistance(prior.a, replaced(19))).toBeCloseTo(0.19, 10);
    expect(textDistance(prior.a, replaced(21))).toBeCloseTo(0.21, 10);
    const h = new HeuristicDelta();
    expect(h.threshold).toBe(0.2);
    expect(await h.detect(prior, { a: replaced(19) })).toBe(false);
    expect(await h.detect(prior, { a: replaced(21) })).toBe(true);
  });

  it("a seat whose text moved past the threshold, or a new seat, is a delta", async () => {
    const h = new HeuristicDelta(0.2);
    const prior = { a: "adopt the four day week in stages", b: "pilot it first" };
    expect(await h.detect(prior, { ...prior })).toBe(false);
    expect(await h.detect(prior, { ...prior, b: "reject it entirely because costs rise" })).toBe(
      true,
    );
    expect(await h.detect(prior, { ...prior, c: "new" })).toBe(true);
    expect(await h.detect(null, prior)).toBe(true);
  });
});
