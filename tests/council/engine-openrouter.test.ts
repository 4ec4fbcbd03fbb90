/**
 * The brief's usage (§3.2) — `new Crucible({ openrouterApiKey, observability })`, nothing else —
 * builds its own OpenRouter models through our provider layer: here against a loopback server
 * speaking OpenRouter's wire format (hand-written replies in tests/fixtures/council/).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../src/cli/run.js";
import { io } from "../support/io.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Crucible, type ExecutorResult } from "../../src/spell/crucible.js";
import {
  startLoopbackProvider,
  type LoopbackReply,
  type LoopbackServer,
} from "../../src/llm/index.js";

const FIXTURE = new URL("../fixtures/council/openrouter-council.json", import.meta.url);
let server: LoopbackServer;
let result: ExecutorResult;

beforeAll(async () => {
  server = await startLoopbackProvider(
    JSON.parse(readFileSync(FIXTURE, "utf8")) as LoopbackReply[],
  );
  const engine = new Crucible({
    openrouterApiKey: "sk-or-v1-loopback-key",
    openrouterBaseUrl: `${server.url}/api/v1`,
    observability: true,
  });
  result = await engine.run("Should we rewrite our Python monolith in Rust? We're five people.");
});
afterAll(() => server.close());

describe("Crucible with its default OpenRouter models", () => {
  it("returns the ExecutorResult with the trace", () => {
    expect(result.loopsExecuted).toBe(2);
    expect(result.earlyExit).toBe(true);
    expect(result.reasoningTrace?.map((l) => l.loopNumber)).toEqual([1, 2]);
    expect(result.finalResponse).toMatch(/^Don't rewrite/);
  });

  it("asks triage on the brief's model, everything else on openrouter/auto, each default with a fallback list", () => {
    const models = server.requests.map((r) => {
      const b = r.body as { model: string; models?: string[] };
      return b.models ? `${b.model} [${b.models.join(", ")}]` : b.model;
    });
    expect(models[0]).toBe(
      "anthropic/claude-sonnet-4 [anthropic/claude-sonnet-4, openrouter/auto]",
    );
    expect(
      models.filter((m) => m === "openai/gpt-4o [openai/gpt-4o, openrouter/auto]"),
    ).toHaveLength(2);
    expect(
      models
        .slice(1)
        .filter((m) => !m.startsWith("openai/gpt-4o"))
        .every((m) => m === "openrouter/auto [openrouter/auto, anthropic/claude-sonnet-4]"),
    ).toBe(true);
    expect(server.requests[0]!.headers["authorization"]).toBe("Bearer sk-or-v1-loopback-key");
  });
});

describe("a council document without llm:", () => {
  it("gets the same defaults, each with its fallback list", async () => {
    const fixture = JSON.parse(readFileSync(FIXTURE, "utf8")) as LoopbackReply[];
    const doc = await startLoopbackProvider(fixture);
    try {
      const dir = mkdtempSync(join(tmpdir(), "council-defaults-"));
      const file = join(dir, "c.yaml");
      writeFileSync(file, "kind: council\nintent: Should we rewrite it in Rust?\n");
      const o = io();
      o.env = { OPENROUTER_API_KEY: "sk-or-v1-loopback", OPENROUTER_BASE_URL: `${doc.url}/api/v1` };
      expect(await runCommand(file, { loom: "memory", quiet: true }, o)).toBe(0);
      const bodies = doc.requests.map((r) => r.body as { model: string; models?: string[] });
      expect(bodies[0]).toMatchObject({
        model: "anthropic/claude-sonnet-4",
        models: ["anthropic/claude-sonnet-4", "openrouter/auto"],
      });
      expect(bodies.at(-1)).toMatchObject({
        model: "openrouter/auto",
        models: ["openrouter/auto", "anthropic/claude-sonnet-4"],
      });
    } finally {
      await doc.close();
    }
  });
});
