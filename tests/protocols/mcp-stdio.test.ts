import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SLOW_SPELL, spellDir, TYPED_SPELL } from "../support/mcp-client.js";

// Issue 26: `spell mcp FILE…` (the built CLI, spawned) serves each spell as a tool; the MCP
// SDK's own client lists, calls, reads progress and cancels.
const { dir, write } = spellDir();
const loom = join(dir, "loom.jsonl");
let client: Client;

beforeAll(async () => {
  const files = [write("typed.yaml", TYPED_SPELL), write("slow.yaml", SLOW_SPELL)];
  client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [resolve("bin/run.js"), "mcp", ...files, "--loom", loom],
      stderr: "ignore",
    }),
  );
}, 120_000);
afterAll(async () => {
  await client?.close();
});

describe("spell mcp over stdio (issue 26)", () => {
  it("lists a tool per spell: inputs as the input schema, output_schema as the output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["summarize", "slow"]);
    const [typed, slow] = tools;
    expect(typed!.description).toBe("Summarizes a file in so many words.");
    expect(typed!.inputSchema).toMatchObject({ required: ["path"] });
    expect(typed!.outputSchema).toMatchObject({ required: ["words"] });
    expect(slow!.inputSchema).toMatchObject({ required: ["intent"] });
    expect(slow!.outputSchema).toBeUndefined();
  });

  it("a bad input is a tool error naming the field; a good one returns structured content", async () => {
    const bad = await client.callTool({ name: "summarize", arguments: { path: "a", words: 3 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("input words: must be >= 10");
    const good = await client.callTool({ name: "summarize", arguments: { path: "README.md" } });
    expect(good.isError).toBeFalsy();
    expect(good.structuredContent).toEqual({ words: 7 });
  });

  it("sends a progress notification as each turn begins", async () => {
    const seen: number[] = [];
    const r = await client.callTool({ name: "slow", arguments: { intent: "go" } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(r.content).toEqual([{ type: "text", text: "finished" }]);
    // The server sends [1, 2] before the result (tests/protocols/mcp-http.test.ts sees both);
    // the SDK's client handles a notification a microtask after a response read in the same
    // chunk, so the last one may reach it after the call ended and be dropped.
    expect(seen[0]).toBe(1);
    expect(seen).toEqual([1, 2].slice(0, seen.length));
  });

  it("a client's cancellation aborts the cast, which the loom records truncated", async () => {
    const controller = new AbortController();
    let started!: () => void;
    const firstTurn = new Promise<void>((r) => (started = r));
    const call = client.callTool({ name: "slow", arguments: { intent: "wait" } }, undefined, {
      signal: controller.signal,
      onprogress: () => started(),
      // the wait gate takes a minute: the call is cancelled long before
      timeout: 120_000,
    });
    // Turn 1 (the wait) does not complete: cancel once it has begun.
    await firstTurn;
    controller.abort("enough");
    await expect(call).rejects.toThrow();
    // The server is still up after a cancellation, and the loom says the cast was truncated.
    const waitFor = async () => {
      for (let i = 0; i < 400; i++) {
        const turns = readFileSync(loom, "utf8")
          .split("\n")
          .filter(Boolean)
          .map(
            (l) =>
              JSON.parse(l) as {
                metadata?: { intent?: string };
                truncated?: boolean;
                type?: string;
              },
          );
        if (turns.some((t) => t.truncated === true)) return turns;
        await new Promise((r) => setTimeout(r, 50));
      }
      return [];
    };
    const turns = await waitFor();
    expect(turns.some((t) => t.truncated === true)).toBe(true);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(2);
  }, 120_000);
});
