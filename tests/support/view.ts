/**
 * A folder for `spell view`: a loom with a fork, a fold, a child, a failed gate call and planted
 * secrets; an eval run beside it; a file and a folder outside it reached only by symbolic
 * links. And the viewer server on 127.0.0.1 with the page's script bundled from the source.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { Redactor } from "../../src/core/redact.js";
import type { ForkRunner } from "../../src/protocols/viewer/fork-route.js";
import { createViewerServer } from "../../src/protocols/viewer/server.js";
import { bundleViewer } from "../../scripts/bundle-viewer.mjs";

/** A token shape the common patterns catch, and a value only the server's redactor knows. */
export const SHAPED_SECRET = "sk-PLANTEDshapedSecret0123456789";
export const KNOWN_SECRET = "hunter2-planted-known-value";
export const OUTSIDE_MARKER = "OUTSIDE-THE-FOLDER-7f3a";

const meta = (seconds: number, extra: Record<string, unknown> = {}) => ({
  tokens_prompt: 100 + seconds,
  tokens_completion: 10,
  tokens_cached: 0,
  duration_ms: 250,
  timestamp: `2026-11-26T10:00:${String(seconds).padStart(2, "0")}.000Z`,
  ...extra,
});

const call = (gate: string, args: unknown, result: string, isError = false, extra = {}) => ({
  gate_name: gate,
  arguments: JSON.stringify(args),
  result,
  is_error: isError,
  ...extra,
});

function turn(
  id: string,
  parent: string | null,
  entity: string,
  seq: number,
  fields: Record<string, unknown>,
) {
  return {
    type: "turn",
    id,
    parent_id: parent,
    cantrip_id: entity === "ent_child" ? "c_child" : "c_main",
    entity_id: entity,
    role: "turn",
    sequence: seq,
    utterance: "",
    observation: "",
    gate_calls: [],
    metadata: meta(seq),
    reward: null,
    terminated: false,
    truncated: false,
    reason: null,
    ...fields,
  };
}

/** The loom's records: ent_root (r1 → r2 → r3), its child ent_child under r2, ent_fork from r1. */
export function loomRecords(): unknown[] {
  return [
    { type: "loom", version: 2, created: "2026-11-26T10:00:00.000Z" },
    {
      type: "identity",
      id: "identity_c_main",
      cantrip_id: "c_main",
      role: "identity",
      identity: { system_prompt: "Count owls." },
      tools: ["echo", "read", "call_entity", "done"],
      medium: "conversation",
      timestamp: "2026-11-26T10:00:00.000Z",
    },
    turn("r1", null, "ent_root", 1, {
      utterance: "Let me greet the owls.",
      observation: "echo: hello owls",
      gate_calls: [call("echo", { text: "hello owls" }, "hello owls")],
      // A key a secret was written into (a loom written elsewhere): redacted like a value.
      metadata: meta(1, {
        intent: `Count the owls (key ${SHAPED_SECRET})`,
        extra: { [SHAPED_SECRET]: "a key" },
      }),
    }),
    turn("r2", "r1", "ent_root", 2, {
      utterance: `Ask a child; read notes with ${KNOWN_SECRET}`,
      observation: `call_entity: 3 owls\nread: ENOENT missing.txt (token ${SHAPED_SECRET})`,
      gate_calls: [
        call("call_entity", { intent: "count owls" }, "3 owls", false, {
          started_at: "2026-11-26T10:00:02.100Z",
          duration_ms: 840,
        }),
        call(
          "read",
          { path: "missing.txt", key: KNOWN_SECRET },
          `ENOENT: missing.txt ${SHAPED_SECRET}`,
          true,
        ),
      ],
      is_error: true,
      metadata: meta(2, { llm: { provider: "openai", model: "gpt-owl" }, cost_usd: 0.0123 }),
    }),
    turn("k1", "r2", "ent_child", 1, {
      utterance: "counting",
      gate_calls: [call("done", { answer: "3 owls" }, "3 owls")],
      metadata: meta(3, { intent: "count owls" }),
      terminated: true,
      reason: "done",
    }),
    turn("r3", "r2", "ent_root", 3, {
      gate_calls: [call("done", { answer: "3" }, "3")],
      terminated: true,
      reason: "done",
    }),
    {
      type: "fold",
      id: "fold_1",
      cantrip_id: "c_main",
      entity_id: "ent_root",
      role: "fold",
      from_sequence: 1,
      to_sequence: 1,
      from_turn_id: "r1",
      to_turn_id: "r1",
      summary: `[Folded: turns 1-1] greeted the owls ${KNOWN_SECRET}`,
      strategy: "template",
      estimated_tokens: 12,
      timestamp: "2026-11-26T10:00:05.000Z",
    },
    turn("f1", "r1", "ent_fork", 2, {
      utterance: "Try another way.",
      gate_calls: [call("echo", { text: "again" }, "again")],
      metadata: meta(6, { intent: "Count again", fork: { from_turn: "r1", strategy: "fork" } }),
    }),
    turn("f2", "f1", "ent_fork", 3, { truncated: true, reason: "max_turns" }),
    { type: "reward", turn_id: "r3", reward: 1, timestamp: "2026-11-26T10:00:09.000Z" },
  ];
}

export const ALL_TURNS = ["r1", "r2", "k1", "r3", "f1", "f2"];

export const jsonl = (records: unknown[]) =>
  records.map((r) => JSON.stringify(r)).join("\n") + "\n";

export interface ViewFolder {
  root: string;
  loom: string;
  outsideFile: string;
}

/** root/loom.jsonl, root/runs/eval-1/{results.jsonl, summary.json, loom.jsonl}, and links out. */
export function viewFolder(): ViewFolder {
  const base = mkdtempSync(join(tmpdir(), "spell-view-"));
  const root = join(base, "looms");
  const outside = join(base, "outside");
  mkdirSync(join(root, "runs", "eval-1"), { recursive: true });
  mkdirSync(outside);
  const loom = join(root, "loom.jsonl");
  writeFileSync(loom, jsonl(loomRecords()));
  const run = join(root, "runs", "eval-1");
  writeFileSync(join(run, "loom.jsonl"), jsonl(loomRecords()));
  writeFileSync(
    join(run, "results.jsonl"),
    jsonl([
      { case: "owls", repeat: 1, pass: true, score: 1, reason: "matched", entity_id: "ent_root" },
      {
        case_id: "owls",
        attempt: 2,
        passed: false,
        score: 0,
        reason: `expected 3, saw ${SHAPED_SECRET}`,
        entity_id: "ent_fork",
      },
    ]),
  );
  writeFileSync(join(run, "summary.json"), JSON.stringify({ cases: 1, passed: 1, failed: 1 }));
  const outsideFile = join(outside, "secret.jsonl");
  writeFileSync(
    outsideFile,
    jsonl([
      { type: "loom", version: 2, created: OUTSIDE_MARKER },
      turn("x1", null, OUTSIDE_MARKER, 1, { utterance: OUTSIDE_MARKER }),
    ]),
  );
  writeFileSync(join(outside, "results.jsonl"), jsonl([{ case: OUTSIDE_MARKER }]));
  symlinkSync(outsideFile, join(root, "escape.jsonl"));
  symlinkSync(outside, join(root, "linked-dir"));
  return { root, loom, outsideFile };
}

let script: Promise<string> | undefined;
/** The page's script, bundled from src/protocols/viewer/page once per test file. */
export const pageScript = (): Promise<string> => (script ??= bundleViewer());

export interface Viewer {
  app: FastifyInstance;
  base: string;
  port: number;
}

export async function startViewer(
  target: string,
  token?: string,
  options: { fork?: ForkRunner; forkModels?: string[] } = {},
): Promise<Viewer> {
  const redactor = new Redactor();
  redactor.add(KNOWN_SECRET);
  const app = await createViewerServer({
    target,
    token,
    redact: (t) => redactor.redact(t),
    appJs: await pageScript(),
    fork: options.fork,
    forkModels: options.forkModels,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  return { app, base: `http://127.0.0.1:${port}`, port };
}

/** A priced scripted reply calling `done` with `answer` (10 tokens in, 5 out). */
const reply = (answer: string) =>
  `{ tool_calls: [{ gate: done, args: { answer: "${answer}" } }], usage: { prompt_tokens: 10, completion_tokens: 5 } }`;

/** A sum spell answering `answers` in turn (cycling unless `cycle` is false: then it runs out). */
export function sumSpell(name: string, answers: string[], cycle = true): string {
  return `kind: cantrip
name: ${name}
llm:
  provider: scripted
  cycle: ${cycle}
  price: { input: 2, output: 8 }
  responses:
${answers.map((a) => `    - ${reply(a)}`).join("\n")}
identity: { system_prompt: Answer with the number only. }
circle: { gates: [done], wards: [{ max_turns: 1 }] }
`;
}

/** An eval of `spells` (file names in the folder) over three sums, `repeat` casts each. */
export function sumEval(spells: string[], repeat: number): string {
  return `kind: eval
name: sums
spells: [${spells.map((s) => `./${s}`).join(", ")}]
cases:
  - { name: one-two, intent: "What is 1 + 2?", expect: [{ result: "3" }] }
  - { name: two-two, intent: "What is 2 + 2?", expect: [{ result: "4" }] }
  - { name: three-two, intent: "What is 3 + 2?", expect: [{ result: "5" }] }
repeat: ${repeat}
concurrency: 1
`;
}
