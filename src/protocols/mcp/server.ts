/**
 * `spell mcp` and `/mcp`: spells served as MCP tools through the official SDK's low-level
 * `Server` (a spell's schemas are JSON Schema already; the high-level server wants zod). A
 * call's inputs are checked by castIntent before any cast; each turn's start is a progress
 * notification when the client asked for them; the client's cancellation aborts the cast (the
 * loom records it truncated); every failure is a tool error — the server never falls over.
 * Every message leaves redacted with the secrets of every spell served (redact-out.ts): the
 * tool list (names, descriptions, schemas), results, errors (issue 38).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type * as McpTypes from "@modelcontextprotocol/sdk/types.js";
import type { CantripEvent } from "../../core/events.js";
import { errorMessage } from "../../core/errors.js";
import { redactingListener } from "../../core/redact-stream.js";
import type { CastResult } from "../../core/result.js";
import type { Loom } from "../../loom/core/index.js";
import { castIntent } from "../../spell/inputs.js";
import type { LoadedSpell } from "../../spell/index.js";
import { redactingTransport, redactMessage, redactorOf, type Redact } from "../redact-out.js";
import { redactedText } from "../../core/redact-stream.js";
import { spellTools, type SpellTool } from "./tools.js";

type Sdk = {
  Server: typeof Server;
  types: typeof McpTypes;
};
let sdk: Promise<Sdk> | undefined;
/** The SDK on first use: `spell --help` and every other command load none of it. */
export const loadServerSdk = (): Promise<Sdk> =>
  (sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([s, types]) => ({ Server: s.Server, types })));

export interface McpServeOptions {
  /** The server's name in `initialize`; default the first spell's. */
  name?: string;
  version?: string;
}

/** A new MCP server answering for the spells (one per connection: the SDK's Server has one transport). */
export async function createMcpServer(
  spells: readonly LoadedSpell[],
  options: McpServeOptions = {},
): Promise<Server> {
  const { Server, types } = await loadServerSdk();
  const redact = redactorOf(spells);
  const tools = spellTools(spells, redact);
  /** A server whose every outgoing message is redacted, whatever transport it is connected to. */
  class RedactingServer extends Server {
    override connect(transport: Parameters<Server["connect"]>[0]): Promise<void> {
      return super.connect(redactingTransport(transport, redact));
    }
  }
  const server = new RedactingServer(
    {
      name: redact(options.name ?? spells[0]?.name ?? "spellbook"),
      version: options.version ?? "0.1.0",
    },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: "object" },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: "object" } } : {}),
    })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) return toolError(`unknown tool ${JSON.stringify(request.params.name)}`);
    const token = request.params._meta?.progressToken;
    // Every notification is out before the result: a client drops progress after the answer.
    const sent: Promise<unknown>[] = [];
    const progress =
      token === undefined
        ? undefined
        : (turn: number) =>
            void sent.push(
              extra
                .sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, progress: turn, message: `turn ${turn}` },
                })
                .catch(() => undefined),
            );
    const result = await callTool(
      tool,
      request.params.arguments ?? {},
      extra.signal,
      progress,
      redact,
    );
    await Promise.all(sent);
    return result;
  });
  return server;
}

async function callTool(
  tool: SpellTool,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress: ((turn: number) => void) | undefined,
  redact: Redact,
): Promise<CallToolResult> {
  const { loaded } = tool;
  let intent: string;
  try {
    intent = loaded.spell.inputs
      ? await castIntent(loaded.spell, { inputs: args })
      : await castIntent(loaded.spell, { intent: stringArg(args["intent"]) });
  } catch (err) {
    return toolError(redact(errorMessage(err))); // a bad input: nothing is cast
  }
  let turns = 0;
  const onEvent = progress
    ? redactingListener((e: CantripEvent) => {
        if (e.type === "step_start") progress(++turns); // a slow turn shows as begun
      }, loaded.redactor)
    : undefined;
  // The client's cancellation (notifications/cancelled) ends the cast with the reason
  // `cancelled`: its free text (the SDK's abort reason) is the client's, not the loom's word.
  const cancel = new AbortController();
  const cancelled = () => cancel.abort("cancelled");
  if (signal.aborted) cancelled();
  else signal.addEventListener("abort", cancelled, { once: true });
  let result: CastResult<Loom>;
  try {
    const options = { signal: cancel.signal, ...(onEvent ? { onEvent } : {}) };
    result = await loaded.cantrip!.cast(intent, options);
  } catch (err) {
    return toolError(redact(`the cast failed: ${errorMessage(err)}`));
  } finally {
    signal.removeEventListener("abort", cancelled);
  }
  return resultOf(tool, result, redact);
}

const stringArg = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v : undefined;

function resultOf(
  tool: SpellTool,
  r: CastResult<Loom>,
  redact: (t: string) => string,
): CallToolResult {
  if (r.status === "failed") return toolError(redact(`the cast failed: ${r.error.message}`));
  if (!r.terminated)
    return toolError(
      `the cast ended truncated (${r.reason}) after ${r.turns} turn(s) without an answer; entity ${r.entityId}`,
    );
  // A result's strings redacted before it is encoded as the text, then the text.
  const content = [{ type: "text" as const, text: redactedText(r.result ?? null, redact) }];
  if (!tool.outputSchema) return { content };
  return { content, structuredContent: redactMessage(tool.structured(r.result), redact) };
}

const toolError = (message: string): CallToolResult => ({
  content: [{ type: "text", text: message }],
  isError: true,
});
