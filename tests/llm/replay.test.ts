import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT, type CliIO } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { testCommand } from "../../src/cli/test.js";
import { compareThreads } from "../../src/conformance/replay.js";
import { readRecordedThread, repliesOfThread, ReplayLLM } from "../../src/llm/providers/replay.js";
import type { Turn } from "../../src/loom/records/index.js";
import { loadSpellText } from "../../src/spell/index.js";
import { failure, withProvider } from "../support/providers.js";

function io(env: Record<string, string> = {}): CliIO & { out: string; err: string } {
  const o = { out: "", err: "", env, cwd: process.cwd() } as CliIO & { out: string; err: string };
  o.stdout = (t) => void (o.out += t);
  o.stderr = (t) => void (o.err += t);
  return o;
}

const dir = mkdtempSync(join(tmpdir(), "replay-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const reply = (calls: [string, string, unknown][], content: string | null = null) => ({
  body: {
    choices: [
      {
        index: 0,
        finish_reason: calls.length ? "tool_calls" : "stop",
        message: {
          role: "assistant",
          content,
          tool_calls: calls.map(([id, name, args]) => ({
            id,
            type: "function",
            function: { name, arguments: JSON.stringify(args) },
          })),
        },
      },
    ],
    usage: { prompt_tokens: 11, completion_tokens: 4 },
  },
});

const spellText = (
  result: string,
) => `llm: { provider: openai, model: gpt-4.1, base_url: '\${env:BASE}' }
identity: { system_prompt: Look things up. }
circle:
  gates: [done, echo, { name: lookup, behavior: { result: ${result} } }]
  wards: [{ max_turns: 6 }]
intent: look up the answer
`;

function turn(over: Partial<Turn>): Turn {
  return {
    id: "t",
    parent_id: null,
    cantrip_id: "c",
    entity_id: "e",
    role: "turn",
    sequence: 1,
    utterance: "",
    observation: "",
    gate_calls: [],
    metadata: {
      tokens_prompt: 1,
      tokens_completion: 2,
      tokens_cached: 0,
      duration_ms: 1,
      timestamp: "",
    },
    reward: null,
    terminated: false,
    truncated: false,
    reason: null,
    ...over,
  };
}

describe("replay: a real run becomes an offline regression test", () => {
  it("spell test --replay reproduces a run recorded from a real provider, with no network and no key", async () => {
    const spell = write("lookup.yaml", spellText("'42'"));
    const loom = join(dir, "lookup.jsonl");
    await withProvider(
      [
        reply(
          [
            ["call_a", "echo", { text: "starting" }],
            ["call_b", "lookup", {}],
          ],
          "Let me look.",
        ),
        reply([["call_c", "done", { answer: "the answer is 42" }]]),
      ],
      async (server) => {
        const o = io({ BASE: `${server.url}/v1`, OPENAI_API_KEY: "sk-test-0123456789abcdefghij" });
        expect(await runCommand(spell, { loom, quiet: true }, o)).toBe(EXIT.ok);
      },
    );
    const recorded = readRecordedThread(loom);
    expect(recorded).toHaveLength(2);
    expect(recorded[0]!.metadata["llm_response"]).toEqual({
      content: "Let me look.",
      tool_calls: [
        { id: "call_a", name: "echo", arguments: '{"text":"starting"}' },
        { id: "call_b", name: "lookup", arguments: "{}" },
      ],
    });

    const offline = io({ BASE: "http://127.0.0.1:9/v1" }); // nothing listens there, and no key is set
    expect(await testCommand([spell], { reporter: "text", replay: loom }, offline)).toBe(EXIT.ok);
    expect(offline.out).toContain(`✓ [replay] ${spell} reproduces ${loom}`);

    // The same recording against a changed spell: the regression is reported at the turn that changed.
    const changed = write("lookup-changed.yaml", spellText("'41'"));
    const o = io({ BASE: "http://127.0.0.1:9/v1" });
    expect(await testCommand([changed], { reporter: "text", replay: loom }, o)).toBe(EXIT.failed);
    expect(o.out).toContain('turn 1, gate call 2 (lookup): result "41", recorded "42"');
  });

  it("a scripted run's loom replays too: its replies are recorded as a provider's are", async () => {
    const spell = write(
      "scripted.yaml",
      `llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: echo, args: { text: hi } }]
    - content: all done
identity: {}
circle: { gates: [done, echo], wards: [{ max_turns: 4 }] }
intent: say hi
`,
    );
    const loom = join(dir, "scripted.jsonl");
    expect(await runCommand(spell, { loom, quiet: true }, io())).toBe(EXIT.ok);
    const replies = repliesOfThread(readRecordedThread(loom));
    expect(replies.map((r) => [r.content, r.toolCalls?.map((c) => c.name) ?? null])).toEqual([
      [null, ["echo"]],
      ["all done", null],
    ]);
    const o = io();
    expect(await testCommand([spell], { reporter: "text", replay: loom }, o)).toBe(EXIT.ok);
  });

  it("the replay provider can be named in a spell, with the loom relative to the spell", async () => {
    const loom = join(dir, "scripted.jsonl");
    const text = `llm: { provider: replay, loom: ${JSON.stringify(loom.replace(dir + "/", ""))} }\nidentity: {}\ncircle: { gates: [done, echo], wards: [{ max_turns: 4 }] }\n`;
    const loaded = await loadSpellText(text, join(dir, "uses-replay.yaml"), { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("say hi");
    expect(result.result).toBe("all done");
    expect(loaded.cantrip!.llm.name).toBe("replay/scripted.jsonl");
  });

  it("a run that asks for more replies than were recorded has diverged: an error, never an invented reply", async () => {
    const llm = new ReplayLLM(
      [
        {
          content: "only one",
          toolCalls: null,
          usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
        },
      ],
      "x.jsonl",
    );
    await llm.query([]);
    const err = await failure(llm.query([]));
    expect(err.code).toBe("replay_exhausted");
    expect(err.message).toContain("the run diverged from the recording");
  });

  it("a missing or empty recording is a clear error", async () => {
    const text = `llm: { provider: replay, loom: nowhere.jsonl }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 2 }] }\n`;
    const err = await failure(
      loadSpellText(text, join(dir, "missing.yaml"), { loomPath: "memory" }),
    );
    expect(err.message).toContain("cannot read the recorded loom");
    const empty = write("empty.jsonl", "");
    expect(() => readRecordedThread(empty)).toThrow(/holds no turns/);
  });

  it("picks the thread ending at a given turn, and only that entity's turns", () => {
    const loom = write(
      "tree.jsonl",
      [
        turn({ id: "a", entity_id: "e1", utterance: "one" }),
        turn({ id: "b", parent_id: "a", entity_id: "e1", utterance: "two" }),
        turn({ id: "c", parent_id: "a", entity_id: "e2", utterance: "fork" }),
        turn({ id: "d", parent_id: "b", entity_id: "e1", utterance: "three" }),
      ]
        .map((t) => JSON.stringify({ type: "turn", ...t }))
        .join("\n") + "\n",
    );
    expect(readRecordedThread(loom).map((t) => t.id)).toEqual(["a", "b", "d"]);
    expect(readRecordedThread(loom, "c").map((t) => t.id)).toEqual(["c"]);
    expect(() => readRecordedThread(loom, "zz")).toThrow(/has no turn "zz"/);
  });

  it("skips turns that were a query cut off by a ward (no reply was recorded)", () => {
    const replies = repliesOfThread([
      turn({
        utterance: "echo({})",
        gate_calls: [{ gate_name: "echo", arguments: "{}", result: "", is_error: false }],
      }),
      turn({
        utterance: "",
        observation: "[truncated: timeout_ms]",
        truncated: true,
        reason: "timeout_ms",
      }),
    ]);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.content).toBeNull();
  });

  it("compareThreads names the first difference", () => {
    const a = turn({
      gate_calls: [{ gate_name: "echo", arguments: '{"text":"a"}', result: "a", is_error: false }],
      terminated: true,
      reason: "done",
    });
    expect(compareThreads([a], [a])).toBeNull();
    expect(compareThreads([a], [])).toContain("ended after 0 turns; the recording has 1");
    expect(compareThreads([a], [{ ...a, reason: "text" }])).toContain(
      'turn 1: reason "text", recorded "done"',
    );
    expect(
      compareThreads([a], [{ ...a, gate_calls: [{ ...a.gate_calls[0]!, is_error: true }] }]),
    ).toContain("is_error true, recorded false");
  });
});
