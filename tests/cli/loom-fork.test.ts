// `spell loom fork LOOM --turn ID|SEQ`: the library's fork() from the shell (LOOM-4; seed 002:
// "fork from any prior turn, restoring sandbox bindings to the fork point"). In-process, as the
// other loom commands' tests.
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomForkCommand, type LoomForkFlags } from "../../src/cli/loom-fork.js";
import { runCommand } from "../../src/cli/run.js";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { startLoopbackProvider, type LoopbackServer } from "../support/providers.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "loom-fork-"));
/** A code-medium spell whose scripted model writes `code`, a line each reply. */
const codeSpell = (name: string, code: string[], cycle = false) => {
  const p = join(dir, name);
  writeFileSync(
    p,
    `llm: { provider: scripted, cycle: ${cycle}, responses: ${JSON.stringify(code.map((c) => ({ code: c })))} }
identity: { system_prompt: Count. }
circle: { medium: code, gates: [done, { name: counter, behavior: { stateful: true } }], wards: [{ max_turns: 4 }] }
intent: pick a colour
`,
  );
  return p;
};
const turnsOf = (loom: string): Turn[] =>
  readLoomFile(loom).records.filter((r) => r.type === "turn");
const forkIn = async (loom: string, flags: LoomForkFlags, env: Record<string, string> = {}) => {
  const o = io(env);
  const code = await loomForkCommand(loom, { quiet: true, ...flags }, o);
  return { code, out: o.out, err: o.err };
};

/** A loom with one run of `spell`: a counter call bound to a variable (turn 1), then done. */
async function ranLoom(name: string): Promise<{ spell: string; loom: string; turns: Turn[] }> {
  const spell = codeSpell(`${name}.yaml`, [
    "var n = counter(); var colour = 'blue'; n",
    "done(colour)",
  ]);
  const loom = join(dir, `${name}.jsonl`);
  const o = io();
  expect(await runCommand(spell, { loom, quiet: true }, o), o.err).toBe(EXIT.ok);
  expect(o.out).toBe("blue\n");
  return { spell, loom, turns: turnsOf(loom) };
}

describe("spell loom fork", () => {
  it("forks from a turn by its sequence: the bindings come back, the gate is not run again", async () => {
    const { spell, loom, turns } = await ranLoom("bindings");
    expect(turns).toHaveLength(2);
    // The fork's model, as the spell now scripts it, reads what turn 1 bound.
    codeSpell("bindings.yaml", ["done(colour + ' ' + n + ' ' + counter())"]);
    const r = await forkIn(loom, { turn: "1", intent: "say it again" });
    expect(r.code, r.err).toBe(EXIT.ok);
    // n is 1, answered from the loom; the fork's own counter (this load's gate) says 1 when first
    // called: the replay did not call it (it would say 2).
    const after = turnsOf(loom);
    expect(after).toHaveLength(3);
    const forked = after[2]!;
    expect(forked).toMatchObject({ parent_id: turns[0]!.id }); // a new entity: its own sequence
    expect(forked.entity_id).not.toBe(turns[0]!.entity_id);
    expect(forked.metadata["fork"]).toEqual({ from_turn: turns[0]!.id, strategy: "replay" });
    expect(r.out).toBe(
      `${forked.entity_id} · from ${turns[0]!.id} (turn 1) · last turn ${forked.id} · terminated (done) · blue 1 1\n`,
    );
    // The original thread is untouched.
    expect(after.slice(0, 2)).toEqual(turns);
    expect(spell).toContain("bindings.yaml");
    // The same line again: the fork is not a thread of its own, turn 1 is still the run's.
    const again = await forkIn(loom, { turn: "1", intent: "say it again" });
    expect(again.code, again.err).toBe(EXIT.ok);
    expect(turnsOf(loom)[3]).toMatchObject({ parent_id: turns[0]!.id });
  });

  it("--times N makes N new entities from the turn; --json prints each as a JSON line", async () => {
    const { loom, turns } = await ranLoom("times");
    codeSpell("times.yaml", ["done('a')", "done('b')", "done('c')"], true);
    const r = await forkIn(loom, { turn: turns[0]!.id, times: 3, json: true });
    expect(r.code, r.err).toBe(EXIT.ok);
    const lines = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l["result"])).toEqual(["a", "b", "c"]);
    expect(new Set(lines.map((l) => l["entity_id"])).size).toBe(3);
    for (const l of lines)
      expect(l).toMatchObject({ status: "terminated", from_turn_id: turns[0]!.id });
    // Each fork hangs from the turn; its last turn is the one to reward.
    const byId = new Map(turnsOf(loom).map((t) => [t.id, t]));
    for (const l of lines)
      expect(byId.get(l["last_turn_id"] as string)).toMatchObject({ parent_id: turns[0]!.id });
  });

  it("the intent defaults to the one the turn's cast recorded", async () => {
    const { loom } = await ranLoom("intent");
    codeSpell("intent.yaml", ["done('again')"]);
    const r = await forkIn(loom, { turn: "2" });
    expect(r.code, r.err).toBe(EXIT.ok);
    const forked = turnsOf(loom)[2]!;
    expect(forked.metadata["intent"]).toBe("pick a colour");
  });

  it("--llm P/M forks on another model", async () => {
    const { loom } = await ranLoom("llm");
    const done = {
      tool_calls: [{ gate: "js", args: { code: "done('from the local model: ' + colour)" } }],
    };
    const server: LoopbackServer = await startLoopbackProvider([wireReplyOf("llm", done, 0)]);
    try {
      const r = await forkIn(
        loom,
        { turn: "1", intent: "again", llm: "local/model" },
        { LOCAL_LLM_BASE_URL: `${server.url}/v1` },
      );
      expect(r.code, r.err).toBe(EXIT.ok);
      expect(r.out).toMatch(/terminated \(done\) · from the local model: blue\n$/);
      expect(turnsOf(loom)[2]!.llm).toMatchObject({ provider: "local", model: "model" });
    } finally {
      await server.close();
    }
  });

  it("--spell forks with a spell the loom does not record (a loom copied without its state)", async () => {
    const { loom } = await ranLoom("copied");
    const copy = join(dir, "copy.jsonl");
    copyFileSync(loom, copy);
    const without = await forkIn(copy, { turn: "1", intent: "again" });
    expect(without.code).toBe(EXIT.invalid);
    expect(without.err).toMatch(
      /no spell is recorded for entity ent_[\w-]+ beside loom .*: give the spell to fork with, --spell FILE/,
    );
    const spell = codeSpell("other.yaml", ["done(colour + '?')"]);
    const r = await forkIn(copy, { turn: "1", intent: "again", spell });
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).toMatch(/ · blue\?\n$/);
  });
});

describe("spell loom fork: clear errors (exit 3)", () => {
  let loom = "";
  let turns: Turn[] = [];
  beforeAll(async () => {
    ({ loom } = await ranLoom("errors"));
    codeSpell("errors.yaml", ["done(1)", "done(2)"], true);
    // A second entity in the same loom: a bare sequence is ambiguous now.
    const o = io();
    expect(await runCommand(join(dir, "errors.yaml"), { loom, quiet: true }, o), o.err).toBe(
      EXIT.ok,
    );
    turns = turnsOf(loom);
  });
  afterAll(() => undefined);

  it("a turn id the loom does not hold", async () => {
    const r = await forkIn(loom, { turn: "turn_nope", intent: "x" });
    expect(r.code).toBe(EXIT.invalid);
    expect(r.err).toContain(`spell loom fork: no turn "turn_nope" in loom ${loom}`);
    expect(turnsOf(loom)).toEqual(turns); // nothing written
  });

  it("a sequence with two entities and no --entity; a sequence the entity does not have", async () => {
    const r = await forkIn(loom, { turn: "1", intent: "x" });
    expect(r.code).toBe(EXIT.invalid);
    expect(r.err).toMatch(
      /--turn 1 is a sequence number: the loom holds 2 entities that start a thread, name one with --entity ID/,
    );
    const entity = turns[0]!.entity_id;
    const past = await forkIn(loom, { turn: "9", entity, intent: "x" });
    expect(past.code).toBe(EXIT.invalid);
    expect(past.err).toContain(
      `entity ${entity} has no turn 9 in loom ${loom} (its turns: 1 to 2)`,
    );
    const ok = await forkIn(loom, { turn: "1", entity, intent: "x" });
    expect(ok.code, ok.err).toBe(EXIT.ok);
  });

  it("an unknown entity, and a turn of another entity", async () => {
    const r = await forkIn(loom, { turn: "1", entity: "ent_nobody", intent: "x" });
    expect(r.code).toBe(EXIT.invalid);
    expect(r.err).toContain(`no entity ent_nobody in loom ${loom}`);
    const other = turns.at(-1)!;
    const wrong = await forkIn(loom, { turn: other.id, entity: turns[0]!.entity_id, intent: "x" });
    expect(wrong.code).toBe(EXIT.invalid);
    expect(wrong.err).toContain(`turn ${other.id} belongs to entity ${other.entity_id}`);
  });

  it("a missing loom file; --times below 1", async () => {
    const missing = join(dir, "nowhere.jsonl");
    const r = await forkIn(missing, { turn: "1" });
    expect(r.code).toBe(EXIT.invalid);
    expect(r.err).toMatch(/nowhere\.jsonl: no such loom file/);
    const zero = await forkIn(loom, { turn: "1", times: 0 });
    expect(zero.code).toBe(EXIT.invalid);
    expect(zero.err).toMatch(/--times 0: give a whole number of forks, 1 or more/);
  });
});
