/**
 * The A2A protocol's own request handling (the official SDK, `@a2a-js/sdk`), built once on the
 * first A2A request so that `spell serve` without A2A traffic (and every other command) never
 * loads the SDK: the request handler over a bounded task store (protocols/a2a/tasks.ts) and the spell's
 * executor, and
 * the JSON-RPC transports of A2A 1.0 (`SendMessage`, …) and 0.3 (`message/send`, `message/stream`,
 * `tasks/get`, `tasks/cancel`), chosen by the `A2A-Version` header as the SDK's Express handler
 * chooses (none means 0.3).
 */
import { A2A_VERSION_HEADER, AgentCard } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  validateVersion,
} from "@a2a-js/sdk/server";
import type { Cantrip } from "../../core/cantrip.js";
import type { Loom } from "../../loom/core/index.js";
import type { LoadedSpell } from "../../spell/index.js";
import { agentCard, legacyAgentCard } from "./card.js";
import { spellExecutor } from "./executor.js";
import { BoundedTaskStore } from "./tasks.js";
import type { CastSlots } from "../http/cast-route.js";

type Headers = Record<string, string | string[] | undefined>;
type Envelope = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };
export type A2AAnswer =
  | { kind: "json"; body: Envelope }
  | { kind: "stream"; events: AsyncGenerator<Envelope, void, undefined> };

export interface A2AHandler {
  /** The agent card as JSON, naming `base` as the server's URL: 1.0, or 0.3 for `legacy`. */
  card(base: string, legacy: boolean): unknown;
  /** Answers one JSON-RPC request body; errors are JSON-RPC error envelopes, never thrown. */
  handle(body: unknown, headers: Headers): Promise<A2AAnswer>;
  /** A JSON-RPC error envelope for an error met while streaming. */
  streamError(err: unknown, id: Envelope["id"], legacy: boolean): Envelope;
}

const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

export function createA2AHandler(
  loaded: LoadedSpell,
  slots: CastSlots,
  maxTasks: number,
): A2AHandler {
  const cantrip: Cantrip<Loom> = loaded.cantrip!;
  // The URL in the handler's card is never shown: the served card names the request's host.
  const requestHandler = new DefaultRequestHandler(
    agentCard(loaded, ""),
    new BoundedTaskStore(maxTasks),
    spellExecutor(cantrip, loaded.spell, slots),
  );
  const current = new JsonRpcTransportHandler(requestHandler);
  const legacy = new LegacyJsonRpcTransportHandler(requestHandler);
  const mapError = (err: unknown, isLegacy: boolean) =>
    isLegacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err)
      : JsonRpcTransportHandler.mapToJSONRPCError(err);
  return {
    card: (base, isLegacy) => {
      const card = agentCard(loaded, base);
      return isLegacy ? legacyAgentCard(card) : AgentCard.toJSON(card);
    },
    async handle(body, headers) {
      const requestedVersion = header(headers, A2A_VERSION_HEADER);
      const isLegacy = (requestedVersion ?? "0.3") === "0.3";
      const id = idOf(body);
      try {
        const context = defaultServerCallContextBuilder({
          extensions: undefined,
          user: new UnauthenticatedUser(),
          headers,
          ...(requestedVersion === undefined ? {} : { requestedVersion }),
        });
        validateVersion(context.requestedVersion, await requestHandler.getAgentCard(), "JSONRPC");
        const answer = await (isLegacy ? legacy : current).handle(
          body as Record<string, unknown>,
          context,
        );
        if (Symbol.asyncIterator in answer) return { kind: "stream", events: answer };
        return { kind: "json", body: answer };
      } catch (err) {
        return { kind: "json", body: { jsonrpc: "2.0", id, error: mapError(err, isLegacy) } };
      }
    },
    streamError: (err, id, isLegacy) => ({ jsonrpc: "2.0", id, error: mapError(err, isLegacy) }),
  };
}

function idOf(body: unknown): Envelope["id"] {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
