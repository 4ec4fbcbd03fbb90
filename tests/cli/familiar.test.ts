import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { familiarEntity, familiarSpellPath } from "../../src/cli/familiar.js";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { startLoopbackProvider, type LoopbackServer } from "../support/providers.js";

// Seed 002 "Familiar" / spec A.12, end to end: `spell familiar DIR` in two real processes
// (bin/run.js, the built CLI), the LLM a loopback OpenAI-compatible server (the real adapter).
const workspace = mkdtempSync(join(tmpdir(), "familiar-"));
cpSync("grimoire/data/project", workspace, { recursive: true });
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const js = (code: string) => ({ tool_calls: [{ gate: "js", args: { code } }] });
const replies = [
  // Process 1, the Familiar: observe.
  js('var files = list_dir("."); var todos = search({ pattern: "TODO" }); [files, todos]'),
  // Delegate the summary to a conversation child with no gates.
  js(
    'var about = call_entity({ intent: "Summarise this README in one sentence.", context: read("README.md"), medium: "conversation", gates: [] }); about',
  ),
  // The child (served by the same LLM: call_entity names none).
  { tool_calls: [{ gate: "done", args: { answer: "It prints tide tables for a harbour." } }] },
  // The Familiar answers.
  js('done(about + " Open TODOs: " + todos.split("\\n").length)'),
  // Process 2: the same entity, its variables back, answers from what it learnt before.
  js('done("Earlier I found: " + about)'),
].map((r, i) => wireReplyOf("llm", r, i));

function familiar(server: LoopbackServer, intent: string, dir = workspace) {
  return new Promise<{ code: number | null; out: string; err: string }>((done, fail) => {
    const child = spawn(
      process.execPath,
      ["bin/run.js", "familiar", dir, "--llm", "local/mock", "--quiet"],
      { env: { ...process.env, LOCAL_LLM_BASE_URL: `${server.url}/v1` } },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, out, err }));
    child.stdin.end(`${intent}\n`);
  });
}

describe("spell familiar (seed 002 Familiar, A.12)", () => {
  it("finds the packaged spell from the source tree", () => {
    expect(familiarSpellPath()).toMatch(/spells[/\\]familiar\.yaml$/);
  });

  it("lists, searches, delegates a summary to a child and answers; a second process continues the same entity", async () => {
    const server = await startLoopbackProvider(replies);
    try {
      const one = await familiar(server, "What is this project?");
      expect(one.err).not.toMatch(/failed|error/i);
      expect(one.code).toBe(0);
      expect(one.out).toContain("It prints tide tables for a harbour. Open TODOs: 4");

      const loomPath = join(workspace, ".spellbook", "familiar.jsonl");
      expect(existsSync(loomPath)).toBe(true);
      const first = familiarEntity(loomPath);
      expect(first).toBeDefined();

      const two = await familiar(server, "What did you find before?");
      expect(two.code).toBe(0);
      expect(two.out).toContain("Earlier I found: It prints tide tables for a harbour.");
      expect(server.pending()).toBe(0);

      // The second process sent the earlier intent and the child's answer back to the LLM.
      const sent = JSON.stringify(server.requests[4]!.body);
      expect(sent).toContain("What is this project?");
      expect(sent).toContain("It prints tide tables for a harbour.");

      // The loom, read as a user would: one Familiar across both processes, its child beneath it.
      const records = readLoomFile(loomPath).records.flatMap((r) =>
        r.type === "turn" ? [r as Turn] : [],
      );
      const familiarTurns = records.filter((r) => r.entity_id === first);
      expect(familiarTurns).toHaveLength(4);
      expect(familiarEntity(loomPath)).toBe(first);
      const calls = familiarTurns.flatMap((t) => t.gate_calls.map((g) => g.gate_name));
      expect(calls).toEqual(["list_dir", "search", "read", "call_entity", "done", "done"]);
      const child = records.filter((r) => r.entity_id !== first);
      expect(child).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 120_000);

  it("with piped input, a send that failed (a local model answering 400) exits non-zero", async () => {
    const server = await startLoopbackProvider([
      { status: 400, body: { error: { message: "model refused the request", type: "invalid" } } },
    ]);
    const dir = mkdtempSync(join(tmpdir(), "familiar-400-"));
    try {
      const r = await familiar(server, "What is this project?", dir);
      expect(r.err).toMatch(/send failed: .*model refused the request/);
      expect(r.code).toBe(4);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
