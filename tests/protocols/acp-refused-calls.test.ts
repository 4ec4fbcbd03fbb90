/**
 * ACP mirrors the event stream: every `tool_call` update is completed or failed by a
 * `tool_call_update` of its id, a call refused past the turn's gate budget included (its
 * refusal the content). The SDK's client side against the in-process agent, scripted LLM.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { methods } from "@agentclientprotocol/sdk";
import { createAcpAgent, type AcpAgent } from "../../src/protocols/acp/agent.js";
import { loadSpellText } from "../../src/spell/index.js";
import { initialize, testClient, type TestClient } from "../support/acp.js";

const read = "{ gate: read, args: { path: a.txt } }";
const SPELL = `name: reader
llm:
  provider: scripted
  responses:
    - tool_calls: [${read}, ${read}, ${read}, ${read}]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: { system_prompt: Read. }
circle:
  gates: [done, { read: { root: . } }]
  wards: [{ max_turns: 4 }, { max_gate_record_kb: 4 }]
`;

let agent: AcpAgent | undefined;
let client: TestClient | undefined;
afterEach(() => {
  client?.connection.close();
  agent?.close();
});

it("every tool_call is answered by a tool_call_update of its id, refusals past the budget too", async () => {
  const dir = mkdtempSync(join(tmpdir(), "acp-refused-"));
  writeFileSync(join(dir, "a.txt"), "x".repeat(3000));
  const file = join(dir, "reader.yaml");
  const loaded = await loadSpellText(SPELL, file, { loomPath: "memory", env: {} });
  agent = await createAcpAgent({
    name: loaded.name,
    cantripFor: async (cwd) =>
      (await loadSpellText(SPELL, file, { loomPath: "memory", env: {}, rootDir: cwd })).cantrip!,
    redactor: loaded.redactor,
  });
  client = testClient(agent.app);
  await initialize(client);
  const { sessionId } = await client.agent.request(methods.agent.session.new, {
    cwd: dir,
    mcpServers: [],
  });
  const answer = await client.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "read it four times" }],
  });
  expect(answer.stopReason).toBe("end_turn");
  const updates = client.updates.map((u) => u.update);
  const calls = updates.flatMap((u) => (u.sessionUpdate === "tool_call" ? [u] : []));
  const ends = updates.flatMap((u) => (u.sessionUpdate === "tool_call_update" ? [u] : []));
  expect(calls.map((c) => c.title)).toEqual(["read", "read", "read", "read", "done"]);
  expect(ends.map((e) => e.toolCallId).sort()).toEqual(calls.map((c) => c.toolCallId).sort());
  expect(ends.map((e) => e.status)).toEqual([
    "completed",
    "failed",
    "failed",
    "failed",
    "completed",
  ]);
  for (const e of ends.slice(1, 4))
    expect(JSON.stringify(e.rawOutput)).toMatch(
      /gate call refused: this turn's gate calls would record/,
    );
});
