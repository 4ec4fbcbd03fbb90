/**
 * A council on OpenRouter's wire format, end to end and offline: the real OpenAI SDK against a
 * loopback server serving hand-written OpenRouter replies (tests/fixtures/council/), then the
 * loom it wrote replayed with the `replay` provider to the same result.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomExportCommand } from "../../src/cli/loom-export.js";
import { runCommand } from "../../src/cli/run.js";
import { TRIAGE_SYSTEM_PROMPT } from "../../src/council/prompts/triage-prompt.js";
import {
  startLoopbackProvider,
  type LoopbackReply,
  type LoopbackServer,
} from "../../src/llm/index.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { io } from "../support/io.js";

const FIXTURE = new URL("../fixtures/council/openrouter-council.json", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "council-recorded-"));
const loom = join(dir, "council.jsonl");
let server: LoopbackServer;
let recorded: Record<string, unknown>;

const turns = (): Turn[] =>
  readLoomFile(loom).records.flatMap((r) => (r.type === "turn" ? [r as unknown as Turn] : []));
const site = (t: Turn) => t.metadata["council"] as { phase: string; seat?: string; loop?: number };

beforeAll(async () => {
  server = await startLoopbackProvider(
    JSON.parse(readFileSync(FIXTURE, "utf8")) as LoopbackReply[],
  );
  const doc = join(dir, "council.yaml");
  writeFileSync(
    doc,
    `kind: council
intent: Should we rewrite our Python monolith in Rust? We're five people.
llm: { provider: openrouter, model: openrouter/auto, base_url: "${server.url}/api/v1", api_key: sk-or-v1-loopback-key }
judge: { llm: { provider: openrouter, model: openai/gpt-4o-mini, base_url: "${server.url}/api/v1", api_key: sk-or-v1-loopback-key } }
observability: true
`,
  );
  const o = io();
  expect(await runCommand(doc, { json: true, loom }, o)).toBe(EXIT.ok);
  recorded = JSON.parse(o.out) as Record<string, unknown>;
});
afterAll(() => server.close());

describe("a council on OpenRouter (loopback, recorded by hand from the wire format)", () => {
  it("runs triage, two loops, the judge's NO, synthesis", () => {
    expect(recorded).toMatchObject({ loops_executed: 2, early_exit: true });
    expect(recorded["final_response"]).toMatch(/^Don't rewrite: profile production first/);
    expect(server.pending()).toBe(0);
  });

  it("asks the brief's triage model with the triage prompt, and a hinted seat with a fallback array", () => {
    const bodies = server.requests.map(
      (r) => r.body as { model: string; models?: string[]; messages: { content: string }[] },
    );
    expect(bodies[0]!.model).toBe("anthropic/claude-sonnet-4"); // OpenRouter's id for the brief's model
    expect(bodies[0]!.messages[0]!.content).toBe(TRIAGE_SYSTEM_PROMPT);
    const hinted = bodies.filter((b) => b.model === "openai/gpt-4o");
    expect(hinted).toHaveLength(2); // the domain expert, in each loop
    for (const b of hinted) expect(b.models).toEqual(["openai/gpt-4o", "openrouter/auto"]);
    expect(bodies.filter((b) => b.model === "openai/gpt-4o-mini")).toHaveLength(1); // the judge
  });

  it("records every call as a turn: phase, the model that answered, its cost, the retried rate limit", () => {
    const all = turns();
    expect(all.map((t) => `${site(t).phase}${site(t).loop ? site(t).loop : ""}`)).toEqual([
      "triage",
      "seat1",
      "seat1",
      "seat1",
      "red_team1",
      "seat2",
      "seat2",
      "seat2",
      "red_team2",
      "judge2",
      "synthesis",
    ]);
    expect(all.slice(1, 4).map((t) => site(t).seat)).toEqual([
      "domain_expert",
      "pragmatist",
      "creative",
    ]);
    expect(all[0]!.metadata).toMatchObject({
      model: "anthropic/claude-sonnet-4",
      upstream_provider: "Anthropic",
      cost: 0.00813,
    });
    expect(all[4]!.metadata["attempts"]).toBe(2); // the 429 with Retry-After: 0, then the reply
    expect(all[10]!.terminated).toBe(true);
    expect(new Set(all.map((t) => t.entity_id)).size).toBe(1);
    expect(readFileSync(loom, "utf8")).not.toContain("sk-or-v1-loopback-key");
  });

  it("spell loom export shows the deliberation, turn by turn", async () => {
    const o = io();
    expect(await loomExportCommand(loom, { redact: true }, o)).toBe(EXIT.ok);
    const lines = o.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; metadata?: { council?: { phase: string } } });
    expect(lines[0]).toMatchObject({ type: "identity", medium: "council" });
    expect(lines.slice(1).map((l) => l.metadata?.council?.phase)).toEqual(
      turns().map((t) => site(t).phase),
    );
  });

  it("the recorded loom replays offline to the same ExecutorResult", async () => {
    const doc = join(dir, "replay.yaml");
    writeFileSync(
      doc,
      `kind: council\nllm: { provider: replay, loom: council.jsonl }\nobservability: true\n`,
    );
    const o = io();
    expect(
      await runCommand(
        doc,
        {
          json: true,
          loom: "memory",
          intent: "Should we rewrite our Python monolith in Rust? We're five people.",
        },
        o,
      ),
    ).toBe(EXIT.ok);
    expect(JSON.parse(o.out)).toEqual(recorded);
  });
});
