/**
 * The agent card `spell serve` publishes at /.well-known/agent-card.json (A2A): the spell's name
 * and description, one skill (the spell), text in and out, the JSON-RPC URL, streaming. A2A 1.0
 * clients (the SDK's resolver sends `A2A-Version: 1.0`) get the 1.0 card; a client that names no
 * version gets the 0.3 card (`url`, `preferredTransport`, `protocolVersion`) with the 1.0
 * interfaces embedded, as the SDK's own Express handler answers.
 */
import { basename } from "node:path";
import type { AgentCard, AgentExtension } from "@a2a-js/sdk";
import type { LoadedSpell } from "../../spell/index.js";

/** Where A2A's JSON-RPC is answered, below the server's base URL. */
export const A2A_PATH = "/a2a";
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
/** The extension a card names when the spell declares typed `inputs:` (its JSON Schema). */
export const INPUTS_EXTENSION = "https://spellbook.dev/a2a/inputs/v1";

/**
 * The spell's declared inputs (JSON Schema), when the loader knows `inputs:`; else undefined and
 * the skill takes one text intent.
 */
export function spellInputs(loaded: LoadedSpell): Record<string, unknown> | undefined {
  const inputs = (loaded.spell as { inputs?: unknown }).inputs;
  return inputs !== null && typeof inputs === "object" && !Array.isArray(inputs)
    ? (inputs as Record<string, unknown>)
    : undefined;
}

export function agentCard(loaded: LoadedSpell, base: string): AgentCard {
  const name = loaded.spell.name ?? basename(loaded.file).replace(/\.ya?ml$/, "");
  const description =
    loaded.description ?? `The spell ${name}: send it an intent as text; it answers as text.`;
  const inputs = spellInputs(loaded);
  const inputModes = inputs ? ["text/plain", "application/json"] : ["text/plain"];
  const extensions: AgentExtension[] = inputs
    ? [
        {
          uri: INPUTS_EXTENSION,
          description: "The spell's named inputs (JSON Schema), sent as one data part.",
          required: false,
          params: { schema: inputs },
        },
      ]
    : [];
  const url = `${base}${A2A_PATH}`;
  return {
    name,
    description,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: inputModes,
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: name,
        name,
        description,
        tags: ["spellbook"],
        examples: loaded.intent ? [loaded.intent] : [],
        inputModes,
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The card as an A2A 0.3 client reads it, the 1.0 interfaces embedded (as the SDK does). */
export function legacyAgentCard(card: AgentCard): Record<string, unknown> {
  const primary = card.supportedInterfaces.find((i) => i.protocolVersion === "0.3")!;
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    protocolVersion: "0.3.0",
    capabilities: { streaming: card.capabilities?.streaming ?? false, pushNotifications: false },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      ...(s.examples.length ? { examples: s.examples } : {}),
      inputModes: s.inputModes,
      outputModes: s.outputModes,
    })),
    supportedInterfaces: card.supportedInterfaces,
  };
}
