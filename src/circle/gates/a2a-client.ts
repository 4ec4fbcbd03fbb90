/**
 * One call of an `a2a` gate: the A2A SDK's client (imported on first use, kept out of the
 * bundles) reads the remote agent's card and streams one message to it. Every request goes
 * through `guardedFetch`: its URL checked against the gate's allow list (the card names the
 * JSON-RPC URL, so a card cannot send the client elsewhere), the gate's headers added, redirects
 * refused. A completed task answers with its artifacts' text (or the agent's message); any other
 * end is an error naming the state. When the calling cast is cancelled or the call times out, the
 * remote task is cancelled too (`tasks/cancel`, best effort, 5 s).
 */
import type { Client } from "@a2a-js/sdk/client";
import type { Part } from "@a2a-js/sdk";
import { checkAllowed, parseTarget, type AllowEntry } from "./fetch-allow.js";

export interface A2AGateConfig {
  /** The gate's name as the entity calls it. */
  name: string;
  /** The agent's base URL (its card is at /.well-known/agent-card.json below it). */
  url: URL;
  allow: readonly AllowEntry[];
  /** Sent with every request (a bearer token from `${env:…}`); never shown. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  description?: string;
}

const CANCEL_MS = 5_000;

const partsText = (parts: readonly Part[]): string =>
  parts
    .map((p) =>
      p.content?.$case === "text"
        ? p.content.value
        : p.content?.$case === "data"
          ? JSON.stringify(p.content.value)
          : "",
    )
    .join("");

/** A fetch that reaches only the allow list, with the gate's headers, bound to `link.signal`. */
function guardedFetch(config: A2AGateConfig, link: { signal: AbortSignal }): typeof fetch {
  return (input, init) => {
    const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const url = parseTarget(raw, undefined, "a2a");
    checkAllowed(config.allow, url, "a2a");
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(config.headers)) headers.set(k, v);
    const signals = [link.signal, init?.signal].filter((s): s is AbortSignal => !!s);
    return fetch(url, { ...init, headers, redirect: "error", signal: AbortSignal.any(signals) });
  };
}

export async function askAgent(
  config: A2AGateConfig,
  intent: string,
  outer: AbortSignal,
): Promise<string> {
  const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } =
    await import("@a2a-js/sdk/client");
  const controller = new AbortController();
  const link = { signal: controller.signal };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, config.timeoutMs);
  const stop = (): void => controller.abort(outer.reason);
  if (outer.aborted) stop();
  else outer.addEventListener("abort", stop, { once: true });
  const fetchImpl = guardedFetch(config, link);
  const compat = { legacyCompat: { enabled: true } };
  let client: Client | undefined;
  const task: { id?: string } = {};
  try {
    client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl, ...compat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, ...compat }),
    }).createFromUrl(config.url.href.replace(/\/$/, ""));
    return await converse(client, intent, controller.signal, task);
  } catch (err) {
    if (controller.signal.aborted && client && task.id) {
      // The remote task goes with the call: a cast cancelled here is cancelled there.
      link.signal = AbortSignal.timeout(CANCEL_MS);
      await client.cancelTask({ tenant: "", id: task.id, metadata: {} }).catch(() => undefined);
    }
    if (timedOut)
      throw new Error(`${config.url.host} did not answer within ${config.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", stop);
  }
}

/** Streams the intent as one user message; the task's id is kept in `task` as soon as it is known. */
async function converse(
  client: Client,
  intent: string,
  signal: AbortSignal,
  task: { id?: string },
): Promise<string> {
  const { Role, TaskState, taskStateToJSON } = await import("@a2a-js/sdk");
  const { randomUUID } = await import("node:crypto");
  const message = {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: "text" as const, value: intent },
        mediaType: "text/plain",
        filename: "",
        metadata: {},
      },
    ],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
  const artifacts = new Map<string, string>();
  let state: number | undefined;
  let said = "";
  const params = { tenant: "", message, configuration: undefined, metadata: {} };
  for await (const event of client.sendMessageStream(params, { signal })) {
    const p = event.payload;
    if (p?.$case === "message") return partsText(p.value.parts);
    if (p?.$case === "task") {
      task.id = p.value.id;
      state = p.value.status?.state;
      for (const a of p.value.artifacts) artifacts.set(a.artifactId, partsText(a.parts));
    } else if (p?.$case === "statusUpdate") {
      task.id ??= p.value.taskId;
      state = p.value.status?.state;
      said = partsText(p.value.status?.message?.parts ?? []);
    } else if (p?.$case === "artifactUpdate" && p.value.artifact) {
      const { artifactId, parts } = p.value.artifact;
      const before = p.value.append ? (artifacts.get(artifactId) ?? "") : "";
      artifacts.set(artifactId, before + partsText(parts));
    }
  }
  if (state === TaskState.TASK_STATE_COMPLETED) return [...artifacts.values()].join("\n");
  const name = state === undefined ? "without a state" : taskStateToJSON(state);
  throw new Error(`the remote task ended ${name}${said ? `: ${said}` : ""}`);
}
