import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText, type LoadedSpell } from "../../src/spell/index.js";
import { SLOW_SPELL, TYPED_SPELL } from "../support/mcp-client.js";

// Issue 26: `spell serve` answers MCP's streamable-HTTP transport at /mcp, behind the same guard
// as its other routes; the SDK's own client speaks to it on loopback.
let app: FastifyInstance | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await app?.close();
  app = client = undefined;
});

async function connect(
  text: string,
  options: ServeOptions = {},
  headers: Record<string, string> = {},
): Promise<{ client: Client; loaded: LoadedSpell; url: string }> {
  const loaded = await loadSpellText(text, "spell.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, options);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  return { client, loaded, url };
}

describe("/mcp on spell serve (issue 26)", () => {
  it("lists the spell's tool and calls it: a bad input is a tool error, a good one structured content", async () => {
    const { client } = await connect(TYPED_SPELL);
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.inputSchema.required, t.outputSchema?.required])).toEqual([
      ["summarize", ["path"], ["words"]],
    ]);
    const bad = await client.callTool({ name: "summarize", arguments: { words: 20 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("input path: is required");
    const good = await client.callTool({ name: "summarize", arguments: { path: "a.md" } });
    expect(good.structuredContent).toEqual({ words: 7 });
  });

  it("reads progress per turn, and a cancellation aborts the cast (the loom records it truncated)", async () => {
    const { client, loaded } = await connect(SLOW_SPELL);
    const seen: number[] = [];
    const r = await client.callTool({ name: "slow", arguments: { intent: "go" } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(r.content).toEqual([{ type: "text", text: "finished" }]);
    expect(seen[0]).toBe(1); // the last may be dropped by the client (see mcp-stdio.test.ts)
    const controller = new AbortController();
    let begun!: () => void;
    const first = new Promise<void>((resolve) => (begun = resolve));
    const call = client.callTool({ name: "slow", arguments: { intent: "wait" } }, undefined, {
      signal: controller.signal,
      onprogress: () => begun(),
      timeout: 120_000,
    });
    await first;
    controller.abort("enough");
    await expect(call).rejects.toThrow();
    const truncated = async () => {
      for (let i = 0; i < 400; i++) {
        if (loaded.cantrip!.loom.turns().some((t) => t.truncated)) return true;
        await new Promise((res) => setTimeout(res, 50));
      }
      return false;
    };
    expect(await truncated()).toBe(true);
    // The loom's reason is `cancelled`, not the client's free text ("enough").
    const cut = loaded.cantrip!.loom.turns().filter((t) => t.truncated);
    expect(cut.map((t) => t.reason)).toEqual(["cancelled"]);
  }, 120_000);

  it("is behind the same guard: without the token, refused (unauthorized) before any MCP session", async () => {
    await expect(connect(TYPED_SPELL, { token: "s3cret-token" })).rejects.toThrow(/unauthorized/);
    await client?.close().catch(() => undefined);
    await app?.close();
    const { client: ok } = await connect(
      TYPED_SPELL,
      { token: "s3cret-token" },
      { authorization: "Bearer s3cret-token" },
    );
    expect((await ok.listTools()).tools).toHaveLength(1);
  });
});
