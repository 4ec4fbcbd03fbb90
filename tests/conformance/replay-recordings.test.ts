import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { replayCheck } from "../../src/conformance/replay.js";
import { readRecordedTree } from "../../src/llm/providers/replay.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "replay-rec-"));

/** `spell run SPELL --loom LOOM`, as a user would: the loom is what the CLI writes. */
async function record(spell: string, name: string, intent?: string): Promise<string> {
  const loom = join(dir, `${name}.jsonl`);
  const o = io();
  const code = await runCommand(spell, { loom, quiet: true, ...(intent ? { intent } : {}) }, o);
  expect([EXIT.ok, EXIT.truncated], o.err).toContain(code); // 05-wards ends truncated
  return loom;
}

const turnsOf = (loom: string) =>
  readLoomFile(loom).records.filter((r) => r.type === "turn").length;

describe("every recording replays: spell run → loom → spell test --replay", () => {
  const all = readdirSync("grimoire").filter((f) => f.endsWith(".yaml"));
  // A bare query (kind: query, A.1) records nothing — no entity, no turn (LLM-1) — so it has no
  // recording to replay; tests/grimoire/query.test.ts checks that it leaves no loom.
  const queries = all.filter((f) =>
    /^kind:\s*query\b/m.test(readFileSync(join("grimoire", f), "utf8")),
  );
  const grimoire = all.filter((f) => !queries.includes(f));

  it("leaves out only the bare queries, which record nothing", () => {
    expect(queries).toEqual(["01-query.yaml"]);
  });

  it.each(grimoire)("grimoire/%s replays to the same turns, children included", async (file) => {
    const loom = await record(join("grimoire", file), file);
    const result = await replayCheck(join("grimoire", file), loom);
    expect(result.message).toBe("");
    expect(result.status).toBe("pass");
    expect(turnsOf(loom)).toBeGreaterThan(0);
  });

  it("the composition loom holds the root and its three children, each replayed on its own", async () => {
    const loom = await record("grimoire/09-composition.yaml", "09-tree");
    const tree = readRecordedTree(loom);
    const spawning = tree.root.turns[0]!.id;
    expect(tree.root.replies).toHaveLength(2);
    expect(tree.descendants.map((d) => [d.spawnedBy, d.replies.length])).toEqual([
      [spawning, 1],
      [spawning, 1],
      [spawning, 1],
    ]);
    expect((await replayCheck("grimoire/09-composition.yaml", loom)).status).toBe("pass");
  });

  it("looms written before replies were recorded replay too (code medium, composition)", async () => {
    for (const name of ["06-medium", "07-codex", "09-composition"]) {
      const loom = await record(`grimoire/${name}.yaml`, `${name}-old`);
      // As older versions wrote a scripted run: no llm_response in the turn metadata.
      const lines = readFileSync(loom, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const r = JSON.parse(l) as { type: string; metadata?: Record<string, unknown> };
          if (r.metadata) delete r.metadata["llm_response"];
          return JSON.stringify(r);
        });
      writeFileSync(loom, lines.join("\n") + "\n");
      expect(readFileSync(loom, "utf8")).not.toContain("llm_response");
      const result = await replayCheck(`grimoire/${name}.yaml`, loom);
      expect(result.message, name).toBe("");
    }
  });
});

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(dir, "p-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

const CHILD = `llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: read, args: { path: fact.txt } }]
    - tool_calls: [{ gate: done, args: { answer: read it } }]
identity: { system_prompt: You read one file and answer. }
circle:
  gates: [done, { read: { root: . } }]
  wards: [{ max_turns: 4 }]
`;

const PARENT = `llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: call_entity, args: { intent: read the fact } }]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: { system_prompt: You delegate. }
circle:
  gates: [done, { call_entity: { spell: ./child.yaml } }]
  wards: [{ max_turns: 4 }]
intent: find the fact
`;

describe("replay of children from a child spell (conversation medium)", () => {
  it("a child spell's LLM is replayed, and a child that now differs is named", async () => {
    const root = project({ "parent.yaml": PARENT, "child.yaml": CHILD, "fact.txt": "the sky" });
    const spell = join(root, "parent.yaml");
    const loom = await record(spell, "child-spell");
    const tree = readRecordedTree(loom);
    expect(tree.descendants).toHaveLength(1);
    expect(tree.descendants[0]!.intent).toBe("read the fact");
    expect(await replayCheck(spell, loom)).toMatchObject({ status: "pass", message: "" });
    writeFileSync(join(root, "fact.txt"), "the sea");
    const changed = await replayCheck(spell, loom);
    expect(changed.status).toBe("fail");
    expect(changed.message).toBe(
      `child ${tree.descendants[0]!.id}: turn 1, gate call 1 (read): result "the sea", recorded "the sky"`,
    );
  });

  it("a replay that spawns a child the recording lacks is a divergence", async () => {
    const root = project({ "parent.yaml": PARENT, "child.yaml": CHILD, "fact.txt": "x" });
    const spell = join(root, "parent.yaml");
    const loom = await record(spell, "no-child");
    // Keep the parent's turns only: the child was never recorded.
    const lines = readFileSync(loom, "utf8").split("\n").filter(Boolean);
    const parentEntity = readRecordedTree(loom).root.id;
    writeFileSync(
      loom,
      lines
        .filter((l) => !l.includes('"type":"turn"') || l.includes(`"entity_id":"${parentEntity}"`))
        .join("\n") + "\n",
    );
    const result = await replayCheck(spell, loom);
    expect(result.status).toBe("fail");
    // A recording of one entity plays in order to whoever asks (a council's seats): the child
    // takes the parent's second reply, and the parent then asks for one past the recording.
    expect(result.message).toContain("the recording has 2 replies and the run asked for reply 3");
  });
});

describe("replay of a batch whose children got different replies", () => {
  it("each child is bound to its own recording: same intent, other contexts, other replies", async () => {
    const root = project({
      "batch.yaml": `llm:
  provider: scripted
  responses:
    - code: |
        var r = call_entity_batch([[1], [1, 2], [1, 2, 3]].map((c) => ({ intent: "count", context: c })));
        r
    - code: done(r)
identity: { system_prompt: You fan out. }
circle:
  medium: code
  gates:
    - done
    - call_entity_batch:
        medium: code
        llm:
          provider: scripted
          responses:
            - code: done(context.length)
            - code: done(context.length * 10)
            - code: done(context.length * 100)
  wards: [{ max_turns: 3 }]
intent: fan out
`,
    });
    const spell = join(root, "batch.yaml");
    const loom = await record(spell, "batch");
    const tree = readRecordedTree(loom);
    const answers = tree.descendants.map((d) => d.turns[0]!.gate_calls[0]!.result);
    expect(new Set(answers).size).toBe(3); // three different replies were recorded
    const result = await replayCheck(spell, loom);
    expect(result.message).toBe("");
    expect(result.status).toBe("pass");
  });
});

describe("replay of the bash medium (passthrough)", () => {
  it("a bash run replays, its child in code too", async () => {
    const root = project({
      "bash.yaml": `llm:
  provider: scripted
  responses:
    - command: "echo hello; call_entity '{\\"intent\\": \\"add\\", \\"medium\\": \\"code\\"}'"
    - command: done "ok"
identity: { system_prompt: You use the shell. }
circle:
  medium: bash
  sandbox: passthrough
  gates:
    - done
    - call_entity:
        llm: { provider: scripted, responses: [{ code: "done(1 + 1)" }] }
  wards: [{ max_turns: 4 }, { max_command_ms: 20000 }]
intent: greet
`,
    });
    const loom = await record(join(root, "bash.yaml"), "bash");
    const tree = readRecordedTree(loom);
    expect(tree.root.turns[0]!.observation).toContain("hello");
    expect(tree.descendants).toHaveLength(1);
    expect(await replayCheck(join(root, "bash.yaml"), loom)).toMatchObject({ status: "pass" });
  });
});

describe("replay of a child the recording lacks, beside one it has", () => {
  it("is named as a divergence", async () => {
    const root = project({
      "n.txt": "1",
      "fan.yaml": `llm:
  provider: scripted
  responses:
    - code: |
        const n = Number(read("n.txt"));
        for (let i = 0; i < n; i++) call_entity({ intent: "child " + i });
        done(n)
identity: { system_prompt: You spawn as many children as n.txt says. }
circle:
  medium: code
  gates:
    - done
    - { read: { root: . } }
    - call_entity: { llm: { provider: scripted, responses: [{ content: one }, { content: two }] } }
  wards: [{ max_turns: 2 }]
intent: fan out
`,
    });
    const spell = join(root, "fan.yaml");
    const loom = await record(spell, "one-child");
    expect(readRecordedTree(loom).descendants).toHaveLength(1);
    writeFileSync(join(root, "n.txt"), "2"); // the world changed: the replay spawns two
    const result = await replayCheck(spell, loom);
    expect(result.status).toBe("fail");
    expect(result.message).toContain("a child spawned where none was recorded");
  });
});
