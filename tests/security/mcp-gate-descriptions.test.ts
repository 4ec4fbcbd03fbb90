import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpellText } from "../../src/spell/index.js";
import { doneReplyLeaking, withProvider } from "../support/providers.js";

// Issue 38: an `mcp:` gate's description and parameters are the server's own words, sent to the
// model with every request. A server that writes a secret the spell gave it (here in its tool's
// description and schema) has it redacted before the model's provider ever sees it.
const HOSTILE = resolve("tests/fixtures/mcp/hostile-server.mjs");
const SECRET = "srv-token-7d2e9a41c6b3";

describe("an MCP server's tool descriptions reach the model redacted (issue 38)", () => {
  it("description and parameters, in the request the provider receives", async () => {
    await withProvider([doneReplyLeaking("ok", "nothing")], async (provider) => {
      const loaded = await loadSpellText(
        `name: consumer
llm: { provider: openai, model: gpt-4.1, base_url: '\${env:BASE}', api_key: sk-test-not-a-key }
identity: { system_prompt: "Use the tool." }
circle:
  gates:
    - done
    - mcp: { name: h, command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify([HOSTILE, "schema"])}, env: { HOSTILE_SECRET: '\${env:SERVER_TOKEN}' }, tools: [echo] }
  wards: [{ max_turns: 2 }]
`,
        "consumer.yaml",
        { env: { SERVER_TOKEN: SECRET, BASE: `${provider.url}/v1` }, loomPath: "memory" },
      );
      const r = await loaded.cantrip!.cast("echo something");
      expect(r.status).toBe("terminated");
      const sent = JSON.stringify(provider.requests[0]!.body);
      const tool = (
        provider.requests[0]!.body as { tools: { function: { name: string } }[] }
      ).tools.find((t) => t.function.name === "h_echo");
      // The server's words did reach the model, the secret in them replaced.
      expect(JSON.stringify(tool)).toContain("Echoes [REDACTED].");
      expect(JSON.stringify(tool)).toContain("key [REDACTED]");
      expect(sent).not.toContain(SECRET);
    });
  }, 120_000);
});
