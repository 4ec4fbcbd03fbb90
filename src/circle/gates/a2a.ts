/**
 * `a2a: { name, url, allow, headers, timeout_ms, description }` as a spell writes it → one gate,
 * NAME, that sends the entity's intent to a remote A2A agent and answers with what it returned:
 * call_entity's counterpart for an agent elsewhere. The allow list is the fetch gate's
 * (fetch-allow.ts): the URL must pass it when the spell is loaded, and every request the
 * protocol's client makes (the agent card, then its JSON-RPC URL, which the card names) is checked
 * against it before any socket opens; redirects are refused. Cancelling the calling cast cancels
 * the remote task (a2a-client.ts).
 */
import { ConfigError, errorMessage } from "../../core/errors.js";
import type { Redactor } from "../../core/redact.js";
import type { Gate } from "../gate.js";
import { askAgent, type A2AGateConfig } from "./a2a-client.js";
import { checkAllowed, parseAllowEntryOf, parseTarget, shownUrl } from "./fetch-allow.js";
import { positiveSetting } from "./positive-setting.js";

export const A2A_DEPENDENCIES = [
  "name",
  "url",
  "allow",
  "headers",
  "timeout_ms",
  "description",
] as const;

const DEFAULT_TIMEOUT_MS = 300_000;
/** A longer answer is cut: one call cannot flood the context. */
const MAX_RESULT_CHARS = 100_000;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const bad = (message: string): ConfigError => new ConfigError("bad_dependency", `a2a: ${message}`);

/** The declaration, checked: every mistake is an error of the spell at the gate's line. */
export function a2aConfigOf(deps: Readonly<Record<string, unknown>>): A2AGateConfig {
  const { name, url, allow = [], headers = {}, description } = deps;
  if (typeof name !== "string" || !NAME.test(name))
    throw bad("name is required: the gate's name as the entity calls it, e.g. name: reviewer");
  if (!Array.isArray(allow)) throw bad("allow is a list of hosts, e.g. [agents.example.org]");
  const entries = allow.map((e) => parseAllowEntryOf(e, "a2a"));
  let target: URL;
  try {
    target = parseTarget(url, undefined, "a2a");
  } catch (err) {
    throw bad(`url: ${errorMessage(err).replace(/^a2a: /, "")}`);
  }
  try {
    checkAllowed(entries, target, "a2a");
  } catch (err) {
    throw new ConfigError("bad_dependency", errorMessage(err));
  }
  if (headers === null || typeof headers !== "object" || Array.isArray(headers))
    throw bad("headers maps names to values, e.g. { authorization: 'Bearer ${env:TOKEN}' }");
  const pairs = Object.entries(headers as Record<string, unknown>).map(([k, v]) => {
    if (typeof v !== "string") throw bad(`headers.${k} is a string`);
    return [k, v] as const;
  });
  const timeout = positiveSetting(deps, "timeout_ms", bad) ?? DEFAULT_TIMEOUT_MS;
  if (description !== undefined && typeof description !== "string")
    throw bad("description is text");
  return {
    name,
    url: target,
    allow: entries,
    headers: Object.fromEntries(pairs),
    timeoutMs: timeout,
    ...(description === undefined ? {} : { description }),
  };
}

export function a2aGate(config: A2AGateConfig, redactor?: Redactor): Gate {
  const redact = (text: string): string => redactor?.redact(text) ?? text;
  const where = shownUrl(config.url);
  return {
    name: config.name,
    description:
      config.description ??
      `Asks the remote agent ${config.name} (A2A, ${where}): send it an intent as text; it answers with its result.`,
    parameters: {
      type: "object",
      properties: {
        intent: { type: "string", description: `What to ask ${config.name}.` },
      },
      required: ["intent"],
    },
    async execute(args, ctx) {
      const intent = args["intent"];
      if (typeof intent !== "string" || intent.trim() === "")
        throw new Error(`${config.name}: intent must be a non-empty string`);
      try {
        const answer = redact(await askAgent(config, intent, ctx.signal));
        return answer.length > MAX_RESULT_CHARS
          ? `${answer.slice(0, MAX_RESULT_CHARS)}\n[cut at ${MAX_RESULT_CHARS} characters]`
          : answer;
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw new Error(redact(`${config.name}: ${errorMessage(err)}`).slice(0, 10_000));
      }
    },
  };
}
