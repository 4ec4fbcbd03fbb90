/** The A2A SDK's own client against a loopback `spell serve`, and a user message in its shape. */
import { randomUUID } from "node:crypto";
import { Role, type Message, type Task } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import type { Client } from "@a2a-js/sdk/client";

/** A user's text message, every field the protocol's types require. */
export function userText(text: string): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: "text", value: text },
        mediaType: "text/plain",
        filename: "",
        metadata: {},
      },
    ],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

export const sendParams = (text: string): Parameters<Client["sendMessage"]>[0] => ({
  tenant: "",
  message: userText(text),
  configuration: undefined,
  metadata: {},
});

/**
 * The SDK's client, from the agent card at `base`; `token` becomes a bearer header, `through`
 * sends (a test may read what comes back).
 */
export async function a2aClient(
  base: string,
  token?: string,
  through: typeof fetch = fetch,
): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    return through(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  const factory = new ClientFactory({
    ...options,
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(base);
}

export const isTask = (r: Message | Task): r is Task => "status" in r;

/** The text parts of a task's artifacts, joined. */
export const artifactText = (task: Task): string =>
  task.artifacts
    .flatMap((a) => a.parts)
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("");
