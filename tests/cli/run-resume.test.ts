// `spell run FILE --resume ENTITY`: a cast cut off by kill -9 or Ctrl-C goes on from its last
// recorded turn, in a new process, against a real OpenAI-wire server on loopback.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLoomFile } from "../../src/loom/stores/index.js";
import { runCli } from "../eval/support/harness.js";
import { Loopback } from "../support/loopback-http.js";

const COUNTER = `name: counter
llm: { provider: openai, model: wire-model, base_url: "\${env:R_BASE}", api_key: "\${env:R_KEY}" }
identity: { system_prompt: Count. }
intent: count up
circle:
  medium: code
  gates: [done]
  wards: [{ max_turns: 5 }]
`;

const completion = (code: string) => ({
  id: "c",
  object: "chat.completion",
  model: "wire-model",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `call_${code.length}`,
            type: "function",
            function: { name: "js", arguments: JSON.stringify({ code }) },
          },
        ],
      },
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

/**
 * The model: its first answer sets a variable; asked a second time (one tool result in the
 * context), it answers `done(n + 1)` — unless `hold` is set, when the request is kept unanswered
 * and `held` resolves: the cast is then mid-turn 2, with turn 1 on disk (LOOM-1).
 */
const wire = new Loopback();
let hold = false;
let onHeld: () => void = () => {};
const held: ServerResponse[] = [];
const intents: string[][] = [];

beforeAll(async () => {
  wire.routes.set("/v1/chat/completions", (_req, res, body) => {
    const messages = (JSON.parse(body) as { messages: { role: string; content: unknown }[] })
      .messages;
    intents.push(messages.filter((m) => m.content === "count up").map((m) => m.role));
    const tools = messages.filter((m) => m.role === "tool").length;
    if (tools >= 1 && hold) {
      held.push(res);
      onHeld();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(completion(tools === 0 ? "var n = 41; n" : "done(n + 1)")));
  });
  await wire.start();
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await wire.stop();
});

function folder() {
  const dir = mkdtempSync(join(tmpdir(), "run-resume-"));
  writeFileSync(join(dir, "counter.yaml"), COUNTER);
  writeFileSync(join(dir, "other.yaml"), COUNTER.replace("name: counter", "name: other"));
  return dir;
}
const env = () => ({ R_BASE: `${wire.origin}/v1`, R_KEY: "sk-test-resume-000000" });
const turnsIn = (dir: string) =>
  readLoomFile(join(dir, "loom.jsonl")).records.filter((r) => r.type === "turn") as {
    entity_id: string;
    sequence: number;
    parent_id: string | null;
    metadata: Record<string, unknown>;
    truncated: boolean;
    reason: string | null;
  }[];

/** Starts `spell run`, and once turn 2's request is held, sends `signal` to the process. */
function runUntilHeld(dir: string, signal: NodeJS.Signals, extra: string[] = []) {
  hold = true;
  let child: ChildProcess | undefined;
  const reached = new Promise<void>((r) => (onHeld = r));
  const run = runCli(
    ["run", "counter.yaml", "--loom", "loom.jsonl", "-q", ...extra],
    env(),
    dir,
    (c) => {
      child = c;
    },
  );
  return reached.then(() => {
    hold = false;
    child!.kill(signal);
    return run;
  });
}

describe("spell run --resume", { timeout: 90_000 }, () => {
  it("after kill -9 mid-cast, --resume finishes the cast: every turn once, in order, the intent once, variables replayed", async () => {
    const dir = folder();
    const killed = await runUntilHeld(dir, "SIGKILL");
    expect(killed.code).toBeNull();
    const before = turnsIn(dir);
    expect(before).toHaveLength(1);
    const id = before[0]!.entity_id;

    intents.length = 0;
    const r = await runCli(
      ["run", "counter.yaml", "--loom", "loom.jsonl", "--resume", id, "--json"],
      env(),
      dir,
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ status: "terminated", result: 42, entity_id: id, turns: 2 });
    expect(intents).toEqual([["user"]]); // one request, the intent in it once
    const after = turnsIn(dir);
    expect(after.map((t) => [t.entity_id, t.sequence])).toEqual([
      [id, 1],
      [id, 2],
    ]);
    expect(after[1]!.parent_id).toBe((after[0] as unknown as { id: string }).id);
    expect(after.filter((t) => t.metadata["intent"] === "count up")).toHaveLength(1);
  });

  it("after Ctrl-C the resume command is shown (stderr and --json); running it finishes the cast", async () => {
    const dir = folder();
    const stopped = await runUntilHeld(dir, "SIGINT");
    expect(stopped.code).toBe(2); // truncated
    const id = turnsIn(dir)[0]!.entity_id;
    expect(stopped.stderr).toContain(
      `resume with: spell run counter.yaml --resume ${id} --loom loom.jsonl\n`,
    );

    const json = await runUntilHeld(folder(), "SIGINT", ["--json"]);
    const shown = JSON.parse(json.stdout) as { entity_id: string; resume: string; reason: string };
    expect(shown.reason).toBe("interrupted");
    expect(shown.resume).toBe(
      `spell run counter.yaml --resume ${shown.entity_id} --loom loom.jsonl`,
    );

    const r = await runCli(
      ["run", "counter.yaml", "--resume", id, "--loom", "loom.jsonl", "-q"],
      env(),
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("42\n");
    const turns = turnsIn(dir);
    // turn 2 is the interruption's record; turn 3 the resumed answer
    expect(turns.map((t) => t.sequence)).toEqual([1, 2, 3]);
    expect(turns[1]).toMatchObject({ truncated: true, reason: "interrupted" });
    expect(turns.filter((t) => t.metadata["intent"] === "count up")).toHaveLength(1);
  });

  it("--resume of a finished cast prints its recorded result without asking the model", async () => {
    const dir = folder();
    const first = await runCli(
      ["run", "counter.yaml", "--loom", "loom.jsonl", "--json"],
      env(),
      dir,
    );
    const { entity_id: id } = JSON.parse(first.stdout) as { entity_id: string };
    const asked = wire.requests.length;
    const again = await runCli(
      ["run", "counter.yaml", "--loom", "loom.jsonl", "--resume", id, "--json"],
      env(),
      dir,
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      status: "terminated",
      entity_id: id,
      turns: 2,
    });
    expect(wire.requests.length).toBe(asked);
    expect(turnsIn(dir)).toHaveLength(2);
  });

  it("--resume of an unknown entity, of another spell's entity, or with a memory loom: a clear error, nothing cast", async () => {
    const dir = folder();
    const first = await runCli(
      ["run", "counter.yaml", "--loom", "loom.jsonl", "--json"],
      env(),
      dir,
    );
    const { entity_id: id } = JSON.parse(first.stdout) as { entity_id: string };
    const asked = wire.requests.length;
    const unknown = await runCli(
      ["run", "counter.yaml", "--loom", "loom.jsonl", "--resume", "ent_nobody"],
      env(),
      dir,
    );
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/no entity ent_nobody in loom .*loom\.jsonl/);
    const other = await runCli(
      ["run", "other.yaml", "--loom", "loom.jsonl", "--resume", id],
      env(),
      dir,
    );
    expect(other.code).toBe(3);
    expect(other.stderr).toContain(`entity ${id} was cast from`);
    expect(other.stderr).toContain("counter.yaml, not");
    const memory = await runCli(
      ["run", "counter.yaml", "--loom", "memory", "--resume", id],
      env(),
      dir,
    );
    expect(memory.code).toBe(3);
    expect(memory.stderr).toMatch(/--resume needs a loom file/);
    expect(wire.requests.length).toBe(asked);
    expect(turnsIn(dir)).toHaveLength(2);
  });
});
