// Each grimoire spell does what its entry in the spec's Appendix A describes.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";
import { EXIT } from "../../src/cli/io.js";
import { loomRewardCommand, loomStatsCommand } from "../../src/cli/loom-tools.js";
import { testCommand } from "../../src/cli/test.js";
import { fork } from "../../src/loom/core/index.js";
import { io } from "../support/io.js";

describe("A.7 Codex: read, write, list_dir, done — it finds the TODOs and writes a summary to out/todos.md", () => {
  it("writes the summary it answers with, inside its out/ root", async () => {
    const dir = mkdtempSync(join(tmpdir(), "codex-"));
    cpSync("grimoire/07-codex.yaml", join(dir, "07-codex.yaml"));
    cpSync("grimoire/data", join(dir, "data"), { recursive: true });
    if (existsSync("grimoire/out")) cpSync("grimoire/out", join(dir, "out"), { recursive: true });
    else mkdirSync(join(dir, "out"));
    const loaded = await loadSpell(join(dir, "07-codex.yaml"), { loomPath: "memory" });
    const result = await loaded.cantrip!.cast(loaded.intent!);
    expect(result.status).toBe("terminated");
    const written = readFileSync(join(dir, "out", "todos.md"), "utf8");
    expect(written).toContain(
      "- project/src/util.js:14 TODO(units): support feet as well as metres.",
    );
    expect(result.result).toContain("out/todos.md");
    const calls = result.loom.turns().flatMap((t) => t.gate_calls.map((c) => c.gate_name));
    expect(calls).toContain("write");
  });
});

describe("A.10 The loom: three casts of one question, a fork of the wrong answer, rewards, the sums", () => {
  it("forks, rewards and sums up offline; pass@k counts the rewarded casts", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "loom-a10-")), "loom.jsonl");
    const loaded = await loadSpell("grimoire/10-loom.yaml", { loomPath: path });
    const cantrip = loaded.cantrip!;
    const casts = [];
    // Three casts as the seed casts again: each of the cantrip the last one returned (its
    // scripted model goes on in its cycle); the fork from the last of them goes on too.
    let next = cantrip;
    for (let i = 0; i < 3; i++) {
      const r = await next.cast(loaded.intent!);
      casts.push(r);
      next = r.nextCantrip;
    }
    expect(casts.map((c) => c.result)).toEqual(["42", "48", "42"]);
    const forked = await fork(next, casts[1]!.lastTurnId!, {
      intent: "Check it: is 6 × 7 really 48?",
    });
    expect(forked.result).toBe("42"); // the cycle starts again
    expect(cantrip.loom.get(forked.lastTurnId!)!.parent_id).toBe(casts[1]!.lastTurnId);
    cantrip.loom.close();
    for (const c of [...casts, forked]) {
      const value = c.result === "42" ? "1" : "0";
      expect(await loomRewardCommand(path, { turn: c.lastTurnId!, value }, io())).toBe(EXIT.ok);
    }
    const o = io();
    expect(await loomStatsCommand(path, { json: true, k: [1, 3] }, o)).toBe(EXIT.ok);
    const [question, check] = (JSON.parse(o.out) as { intents: Record<string, unknown>[] }).intents;
    const turnUsd = (120 * 0.4 + 12 * 1.6) / 1e6;
    expect(question).toMatchObject({
      intent: "What is 6 × 7?",
      casts: 3,
      terminated: 3,
      turns: 4,
      rewarded: 3,
      correct: 2,
      pass_at_k: { "3": 1 },
      pass_hat_k: { "3": 0 },
    });
    expect((question!["pass_at_k"] as Record<string, number>)["1"]).toBeCloseTo(2 / 3, 12);
    expect(question!["cost_usd"] as number).toBeCloseTo(4 * turnUsd, 12);
    expect(check).toMatchObject({ intent: "Check it: is 6 × 7 really 48?", casts: 1, correct: 1 });
  });

  it("its own test (spell test) casts, forks and rewards", async () => {
    const o = io();
    expect(await testCommand(["grimoire/10-loom.yaml"], { reporter: "text" }, o)).toBe(EXIT.ok);
  });
});
