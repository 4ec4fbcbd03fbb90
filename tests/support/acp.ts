/**
 * The SDK's own client side, for tests: connects to an agent app in-process or to a stream (a
 * spawned `spell acp`), and collects every `session/update` it receives.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { AgentApp, ClientConnection, SessionNotification } from "@agentclientprotocol/sdk";

export interface TestClient {
  connection: ClientConnection;
  agent: ClientConnection["agent"];
  updates: SessionNotification[];
  /** The updates of one session, as `sessionUpdate` kinds in order. */
  kinds(sessionId: string): string[];
  /** The agent's message text in one session. */
  message(sessionId: string): string;
}

export function testClient(target: AgentApp | acp.Stream): TestClient {
  const updates: SessionNotification[] = [];
  const app = acp
    .client({ name: "test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    });
  const connection = app.connect(target as AgentApp);
  const of = (id: string) => updates.filter((u) => u.sessionId === id).map((u) => u.update);
  return {
    connection,
    agent: connection.agent,
    updates,
    kinds: (id) => of(id).map((u) => u.sessionUpdate),
    message: (id) =>
      of(id)
        .map((u) =>
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
            ? u.content.text
            : "",
        )
        .join(""),
  };
}

export const initialize = (c: TestClient) =>
  c.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
