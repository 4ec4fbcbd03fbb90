// `spell view --allow-fork --fork-llm P/M`: a fork asked with another model runs on that model.
// Two models of the `local` provider (an OpenAI-wire server on loopback, LOCAL_LLM_BASE_URL):
// the spell casts on owl-a; the page forks on owl-b (given with --fork-llm), and the wire sees
// owl-b asked, the forked turn records it; a model not offered reaches no wire at all.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/run.js";
import { forkRunner } from "../../src/cli/view.js";
import { EXIT } from "../../src/cli/io.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import { Loopback } from "../support/loopback-http.js";
import { io } from "../support/io.js";
import { startViewer, type Viewer } from "../support/view.js";

const SPELL = `kind: cantrip
name: owl
llm: { provider: local, model: owl-a }
identity: { system_prompt: Answer with the number only. }
circle: { gates: [done], wards: [{ max_turns: 1 }] }
`;

/** A reply calling `done` with the model's own name, so the result says who answered. */
const completion = (model: string) => ({
  id: "c",
  object: "chat.completion",
  model,
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "done", arguments: JSON.stringify({ answer: `three, by ${model}` }) },
          },
        ],
      },
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

const wire = new Loopback();
const asked: string[] = [];
let root: string;
let viewer: Viewer;

type Turn = {
  id: string;
  entity_id: string;
  llm?: unknown;
  metadata: Record<string, unknown>;
};
const turns = () =>
  readLoomFile(join(root, "loom.jsonl")).records.filter((r) => r.type === "turn") as Turn[];

beforeAll(async () => {
  wire.routes.set("/v1/chat/completions", (_req, res, body) => {
    const model = (JSON.parse(body) as { model: string }).model;
    asked.push(model);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(completion(model)));
  });
  await wire.start();
  root = mkdtempSync(join(tmpdir(), "view-fork-model-"));
  writeFileSync(join(root, "owl.yaml"), SPELL);
  const env = { PATH: process.env["PATH"] ?? "", LOCAL_LLM_BASE_URL: `${wire.origin}/v1` };
  const o = { ...io(), env, cwd: root };
  const code = await runCommand(
    join(root, "owl.yaml"),
    { loom: join(root, "loom.jsonl"), quiet: true, intent: "How many owls?" },
    o,
  );
  expect(code, o.err).toBe(EXIT.ok);
  viewer = await startViewer(root, undefined, {
    fork: forkRunner({ ...io(), env, cwd: root }),
    forkModels: ["local/owl-b"],
  });
}, 60_000);
afterAll(async () => {
  await viewer?.app.close();
  await wire.stop();
});

const fork = (body: Record<string, unknown>) =>
  fetch(`${viewer.base}/api/l/0/fork`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-spell-view": "fork" },
    body: JSON.stringify(body),
  });

describe("spell view: a fork on the model chosen in the page", () => {
  it("offers the given model first, then the loom's; the fork runs on the one chosen", async () => {
    const features = (await (await fetch(`${viewer.base}/api/l/0/features`)).json()) as {
      models: string[];
    };
    expect(features.models).toEqual(["local/owl-b", "local/owl-a"]);
    expect(asked).toEqual(["owl-a"]);
    const origin = turns()[0]!;
    const a = await fork({ turn: origin.id, intent: "How many owls now?", llm: "local/owl-b" });
    const answer = (await a.json()) as { entity: string; status: string };
    expect(a.status, JSON.stringify(answer)).toBe(200);
    expect(answer.status).toBe("terminated");
    expect(asked).toEqual(["owl-a", "owl-b"]);
    const forked = turns().filter((t) => t.entity_id === answer.entity);
    expect(forked).toHaveLength(1);
    // The turn records the model that answered it (the viewer reads it from there).
    expect(forked[0]!.llm ?? forked[0]!.metadata["llm"]).toMatchObject({
      provider: "local",
      model: "owl-b",
    });
    expect(forked[0]!.metadata["intent"]).toBe("How many owls now?");
    // Without a model: the spell's own.
    const own = await fork({ turn: origin.id, intent: "And again?" });
    expect(own.status).toBe(200);
    expect(asked).toEqual(["owl-a", "owl-b", "owl-a"]);
  });

  it("a model not offered reaches no wire, and nothing is written", async () => {
    const before = turns().length;
    const calls = asked.length;
    const a = await fork({ turn: turns()[0]!.id, intent: "x", llm: "local/owl-c" });
    expect(a.status).toBe(400);
    expect(asked.length).toBe(calls);
    expect(turns().length).toBe(before);
  });
});
