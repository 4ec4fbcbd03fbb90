import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { exportJsonl } from "../../src/loom/reading/index.js";
import { loadSpellText } from "../../src/spell/index.js";
import { TYPED_SPELL } from "../support/mcp-client.js";

// Issue 26: an `mcp:` gate reaches a server over streamable HTTP (here `/mcp` of a loopback
// `spell serve`), with headers whose `${env:…}` secrets never leave in a result, an error or the loom.
const SECRET = "tok-9f3b1c77e2d04a58";
let server: FastifyInstance | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function remote(): Promise<string> {
  const served = await loadSpellText(TYPED_SPELL, "summarize.yaml", { loomPath: "memory" });
  server = await createHttpServer(served, { token: SECRET });
  return `${await server.listen({ port: 0, host: "127.0.0.1" })}/mcp`;
}

const consumer = (url: string, second: string) => `name: consumer
llm:
  provider: scripted
  responses:
    - { tool_calls: [{ gate: remote_summarize, args: { path: notes.md } }] }
    - ${second}
identity: {}
circle:
  gates:
    - done
    - mcp: { name: remote, url: ${url}, tools: [summarize], headers: { Authorization: "Bearer \${env:REMOTE_TOKEN}" } }
  wards: [{ max_turns: 3 }]
`;

describe("mcp gate over streamable HTTP (issue 26)", () => {
  it("calls the tool of a server at url:, with its headers; the answer comes back", async () => {
    const url = await remote();
    const text = consumer(url, "{ tool_calls: [{ gate: done, args: { answer: ok } }] }");
    const loaded = await loadSpellText(text, "consumer.yaml", {
      loomPath: "memory",
      env: { REMOTE_TOKEN: SECRET },
    });
    expect(loaded.warnings.map((w) => w.message).join()).toContain(`remote (${url})`);
    const r = await loaded.cantrip!.cast("summarize the notes");
    expect(r.result).toBe("ok");
    const turn = loaded.cantrip!.loom.turns()[0]!;
    const call = turn.gate_calls[0]!;
    expect(call.is_error).toBe(false);
    expect(call.result).toContain('"words":7');
    expect(exportJsonl(loaded.cantrip!.loom)).not.toContain(SECRET);
  });

  it("a refused token is a gate error the entity reads, without the secret", async () => {
    const url = await remote();
    const text = consumer(url, "{ content: gave up }");
    const wrong = `${SECRET}-wrong`;
    const loaded = await loadSpellText(text, "consumer.yaml", {
      loomPath: "memory",
      env: { REMOTE_TOKEN: wrong },
    });
    const r = await loaded.cantrip!.cast("summarize the notes");
    const call = loaded.cantrip!.loom.turns()[0]!.gate_calls[0]!;
    expect(call.is_error).toBe(true);
    expect(call.result).toMatch(/unauthorized|401|token/i);
    expect(JSON.stringify(r) + exportJsonl(loaded.cantrip!.loom)).not.toContain(wrong);
  });

  it("url: takes http(s) only, no credentials in it, and not beside command:", async () => {
    for (const [url, why] of [
      ["ftp://127.0.0.1/mcp", /scheme ftp: is not allowed/],
      ["http://user:pw@127.0.0.1/mcp", /credentials in the URL are refused/],
    ] as const) {
      await expect(
        loadSpellText(consumer(url, "{ content: x }"), "c.yaml", {
          loomPath: "memory",
          env: { REMOTE_TOKEN: SECRET },
        }),
      ).rejects.toThrow(why);
    }
    const both = consumer("http://127.0.0.1:1/mcp", "{ content: x }").replace(
      "url:",
      "command: node, url:",
    );
    await expect(
      loadSpellText(both, "c.yaml", { loomPath: "memory", env: { REMOTE_TOKEN: SECRET } }),
    ).rejects.toThrow(/not both/);
  });
});
