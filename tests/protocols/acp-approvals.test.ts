/**
 * Issue 25 over `spell acp`: an approval question is the protocol's `session/request_permission`,
 * sent to the editor through a real ACP connection (the SDK's client side, in-process); the
 * option it selects returns to the gate — allow once runs it, reject denies it, allow always
 * is asked once for the session.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as acp from "@agentclientprotocol/sdk";
import type { ClientConnection, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { createAcpAgent, type AcpAgent } from "../../src/protocols/acp/agent.js";
import { loadSpellText } from "../../src/spell/index.js";

const SPELL = `name: asker
llm:
  provider: scripted
  cycle: true
  responses:
    - tool_calls: [{ gate: echo, args: { text: "ship it" } }]
    - tool_calls: [{ gate: echo, args: { text: "again" } }]
    - tool_calls: [{ gate: done, args: { answer: over } }]
identity: {}
circle:
  gates: [done, echo]
  wards: [{ max_turns: 5 }]
  approve: [{ gate: echo }]
`;

let agent: AcpAgent | undefined;
let connection: ClientConnection | undefined;
afterEach(() => {
  connection?.close();
  agent?.close();
  agent = connection = undefined;
});

/** An agent for the spell and an editor that answers each permission request with `choose`. */
async function start(choose: (params: RequestPermissionRequest) => string) {
  const loaded = await loadSpellText(SPELL, join(tmpdir(), "asker.yaml"), { loomPath: "memory" });
  agent = await createAcpAgent({
    name: loaded.name,
    cantripFor: () => Promise.resolve(loaded.cantrip!),
    redactor: loaded.redactor,
  });
  const asked: RequestPermissionRequest[] = [];
  const app = acp
    .client({ name: "editor" })
    .onNotification(acp.methods.client.session.update, () => undefined)
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: "selected" as const, optionId: choose(params) } };
    });
  connection = app.connect(agent.app);
  await connection.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
  });
  const session = (
    await connection.agent.request(acp.methods.agent.session.new, { cwd: tmpdir(), mcpServers: [] })
  ).sessionId;
  const prompt = () =>
    connection!.agent.request(acp.methods.agent.session.prompt, {
      sessionId: session,
      prompt: [{ type: "text", text: "go" }],
    });
  return { loaded, asked, prompt, session };
}

const echoes = (loaded: Awaited<ReturnType<typeof start>>["loaded"]) =>
  loaded
    .cantrip!.loom.turns()
    .flatMap((t) => t.gate_calls)
    .filter((c) => c.gate_name === "echo")
    .map((c) => [c.is_error, c.result.replace(/ \(denied.*$/, "")]);

describe("approvals over spell acp", () => {
  it("session/request_permission with the editor's options; allow once runs the gate", async () => {
    const { loaded, asked, prompt, session } = await start(() => "allow");
    await prompt();
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({
      sessionId: session,
      toolCall: { rawInput: { text: "ship it" } },
    });
    expect(asked[0]!.options.map((o) => o.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    expect(echoes(loaded)).toEqual([
      [false, "ship it"],
      [false, "again"],
    ]);
    const records = loaded.cantrip!.loom.turns()[0]!.metadata["approvals"];
    expect(records).toMatchObject([{ gate: "echo", allowed: true, by: "editor" }]);
  });

  it("reject: the gate never runs and the entity reads why", async () => {
    const { loaded, prompt } = await start(() => "reject");
    await prompt();
    expect(echoes(loaded)).toEqual([
      [true, "echo was not run: approval denied"],
      [true, "echo was not run: approval denied"],
    ]);
  });

  it("allow always: asked once for the session, both calls run", async () => {
    const { loaded, asked, prompt } = await start(() => "always");
    await prompt();
    expect(asked).toHaveLength(1);
    expect(echoes(loaded).map(([error]) => error)).toEqual([false, false]);
  });
});
