import { ConfigError } from "./errors.js";
import type { ToolChoice } from "./contract.js";
import { printRedacted, type Redact } from "./printed.js";

/** The immutable configuration that shapes the LLM: system prompt + hyperparameters (chapter 3). */
export interface Identity {
  readonly systemPrompt: string | null;
  /** temperature, top_p, max_tokens, stop, ... passed to the LLM on every query. */
  readonly hyperparameters: Readonly<Record<string, unknown>>;
  /** Overrides the medium's default tool_choice when set. */
  readonly toolChoice?: ToolChoice | undefined;
}

export interface IdentityInput {
  systemPrompt?: string | null | undefined;
  /** The same as `hyperparameters.temperature` (the one setting every provider takes). */
  temperature?: number | undefined;
  /** In the wire's words, as a spell writes them: `top_p`, `max_tokens`, `stop`, `seed`, … */
  hyperparameters?: Record<string, unknown> | undefined;
  toolChoice?: ToolChoice | undefined;
}

const INPUT_KEYS = new Set(["systemPrompt", "temperature", "hyperparameters", "toolChoice"]);

const immutable = (): never => {
  // IDENTITY-1: the identity is set at construction and never changes.
  throw new ConfigError("identity_immutable", "identity is immutable");
};

const handler: ProxyHandler<object> = {
  set: immutable,
  defineProperty: immutable,
  deleteProperty: immutable,
  setPrototypeOf: immutable,
};

/** Deep-freezes a value behind a proxy whose every mutation throws "identity is immutable". */
function seal<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  for (const key of Object.keys(value)) {
    (value as Record<string, unknown>)[key] = seal((value as Record<string, unknown>)[key]);
  }
  return new Proxy(Object.freeze(value), handler) as T;
}

/**
 * The identity, sealed (IDENTITY-1). A key it does not know is an error, never dropped. With
 * `redact` (a loaded spell's), it prints through it: `console.log(cantrip.identity)` and
 * `JSON.stringify` show no `${env:…}` value of its system prompt (PROD-8).
 */
export function createIdentity(
  input: IdentityInput = {},
  options: { redact?: Redact } = {},
): Identity {
  const unknown = Object.keys(input).filter((k) => !INPUT_KEYS.has(k));
  if (unknown.length > 0)
    throw new ConfigError(
      "bad_identity",
      `unknown identity key ${unknown.join(", ")}: an identity takes ${[...INPUT_KEYS].join(", ")} ` +
        `(other settings go under hyperparameters, e.g. { hyperparameters: { top_p: 0.9 } })`,
    );
  const hyperparameters = structuredClone(input.hyperparameters ?? {});
  if (input.temperature !== undefined) {
    const given = hyperparameters["temperature"];
    if (given !== undefined && given !== input.temperature)
      throw new ConfigError(
        "bad_identity",
        `temperature is ${String(input.temperature)} and hyperparameters.temperature ${JSON.stringify(given)}: write it once`,
      );
    hyperparameters["temperature"] = input.temperature;
  }
  const identity: Identity = {
    systemPrompt: input.systemPrompt ?? null,
    hyperparameters,
    ...(input.toolChoice === undefined ? {} : { toolChoice: input.toolChoice }),
  };
  if (options.redact) printRedacted(identity, "Identity", options.redact);
  return seal(identity);
}

/** The identity as it is stored in the loom root (IDENTITY-4), in the spec's snake_case. */
export function identityRecord(identity: Identity): Record<string, unknown> {
  return {
    system_prompt: identity.systemPrompt,
    hyperparameters: { ...identity.hyperparameters },
    ...(identity.toolChoice === undefined ? {} : { tool_choice: identity.toolChoice }),
  };
}
