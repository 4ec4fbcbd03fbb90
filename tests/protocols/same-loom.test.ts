/**
 * PROD-1: one spell with one scripted LLM, run through the library, the CLI, HTTP and ACP,
 * records the same loom turn for turn (ids, timestamps, durations and entity ids aside).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { methods } from "@agentclientprotocol/sdk";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { createAcpAgent } from "../../src/protocols/acp/agent.js";
import { loadSpell } from "../../src/spell/index.js";
import { initialize, testClient } from "../support/acp.js";

const bin = fileURLToPath(new URL("../../bin/run.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "same-loom-"));
const file = join(dir, "spell.yaml");
writeFileSync(
  file,
  `name: same
llm:
  provider: scripted
  responses:
    - content: Let me look.
      tool_calls: [{ gate: echo, args: { text: "first look" } }]
      usage: { prompt_tokens: 30, completion_tokens: 5 }
    - tool_calls: [{ gate: echo, args: { text: "second look" } }]
      usage: { prompt_tokens: 40, completion_tokens: 6 }
    - tool_calls: [{ gate: done, args: { answer: "the same answer" } }]
      usage: { prompt_tokens: 50, completion_tokens: 7 }
identity: { system_prompt: "Look twice, then answer." }
circle: { gates: [done, echo], wards: [{ max_turns: 5 }] }
`,
);
const INTENT = "look and answer";

/** A loom's turns without what differs from run to run. */
function normalised(loomFile: string) {
  return readFileSync(loomFile, "utf8")
    .split("\n")
    .filter((l) => l.includes('"utterance"'))
    .map((l) => {
      const t = JSON.parse(l) as Record<string, unknown>;
      const metadata = { ...(t["metadata"] as Record<string, unknown>) };
      delete metadata["duration_ms"];
      delete metadata["timestamp"];
      const rest = { ...t };
      for (const k of ["id", "parent_id", "entity_id", "cantrip_id", "timestamp"]) delete rest[k];
      // When each gate call ran and for how long (loom format 3) differ from run to run.
      rest["gate_calls"] = (t["gate_calls"] as Record<string, unknown>[]).map(
        ({ started_at: _s, duration_ms: _d, ...call }) => call,
      );
      return { ...rest, metadata };
    });
}

const loomAt = (name: string) => join(dir, `${name}.jsonl`);
const load = (name: string) => loadSpell(file, { loomPath: loomAt(name) });

describe("PROD-1: the same loom through every door", () => {
  it("library, CLI, HTTP and ACP record the same turns", async () => {
    const lib = await load("library");
    expect((await lib.cantrip!.cast(INTENT)).result).toBe("the same answer");
    lib.cantrip!.loom.close();

    const cli = spawnSync(
      process.execPath,
      [bin, "run", file, "--intent", INTENT, "--loom", loomAt("cli"), "--quiet"],
      { encoding: "utf8" },
    );
    expect(cli.status).toBe(0);
    expect(cli.stdout.trim()).toBe("the same answer");

    const http = await load("http");
    const app = await createHttpServer(http);
    const res = await app.inject({ method: "POST", url: "/cast", payload: { intent: INTENT } });
    expect(res.json()).toMatchObject({ result: "the same answer" });
    await app.close();
    http.cantrip!.loom.close();

    const acpSpell = await load("acp");
    const agent = await createAcpAgent({
      name: acpSpell.name,
      cantripFor: () => Promise.resolve(acpSpell.cantrip!),
      redactor: acpSpell.redactor,
    });
    const client = testClient(agent.app);
    await initialize(client);
    const { sessionId } = await client.agent.request(methods.agent.session.new, {
      cwd: dir,
      mcpServers: [],
    });
    await client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: INTENT }],
    });
    client.connection.close();
    agent.close();
    acpSpell.cantrip!.loom.close();

    const reference = normalised(loomAt("library"));
    expect(reference).toHaveLength(3);
    expect(reference[0]).toMatchObject({ sequence: 1, metadata: { intent: INTENT } });
    for (const door of ["cli", "http", "acp"])
      expect([door, normalised(loomAt(door))]).toEqual([door, reference]);
  });
});
