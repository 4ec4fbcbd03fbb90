/**
 * PROD-8 at every served surface (issue 38): what `spell mcp`, `spell serve` (its HTTP answers,
 * `/mcp`, A2A) and `spell acp` send leaves through one redaction — the project's Redactor, with
 * the secrets of every spell served, applied to every string and every key of a message before
 * it is encoded (and, for text we encode ourselves, to the text as sent). A description built
 * from any field a spell writes (its name, description, inputs, output schema…) is redacted by
 * the same step as a cast's answer, so no surface can forget one.
 */
import { redactDeep } from "../core/redact-stream.js";
import type { Redactor } from "../core/redact.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

export type Redact = (text: string) => string;

/** One redaction with the secrets of every spell served (a server of several spells). */
export function redactorOf(spells: readonly { redactor: Pick<Redactor, "redact"> }[]): Redact {
  return (text) => spells.reduce((out, s) => s.redactor.redact(out), text);
}

/** A message to send (an object the transport encodes), every string and key redacted. */
export const redactMessage = <T>(message: T, redact: Redact): T => redactDeep(message, redact);

/** JSON text to send: every string and key redacted before encoding, then the text as sent. */
export { redactedJson } from "../core/redact-stream.js";

/**
 * An MCP transport, its every outgoing message redacted (responses, notifications, errors):
 * the one place an MCP server's messages leave, whichever handler made them.
 */
export function redactingTransport<T extends Transport>(transport: T, redact: Redact): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(redactMessage(message, redact), options);
  return transport;
}
