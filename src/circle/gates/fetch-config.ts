/** `fetch: { allow, max_bytes, timeout_ms, methods, max_redirects }` as a spell writes it → the gate. */
import { ConfigError } from "../../core/errors.js";
import type { Gate } from "../gate.js";
import { positiveSetting } from "./positive-setting.js";
import { FETCH_METHODS, fetchGate, type FetchOptions } from "./fetch.js";

export const FETCH_DEPENDENCIES = [
  "allow",
  "max_bytes",
  "timeout_ms",
  "methods",
  "max_redirects",
] as const;

const bad = (message: string): ConfigError =>
  new ConfigError("bad_dependency", `fetch: ${message}`);

const positive = (deps: Readonly<Record<string, unknown>>, key: string) =>
  positiveSetting(deps, key, bad);

export function fetchGateOf(deps: Readonly<Record<string, unknown>>): Gate {
  const allow = deps["allow"] ?? [];
  if (!Array.isArray(allow)) throw bad("allow is a list of hosts, e.g. [api.github.com]");
  const options: FetchOptions = { allow: allow as unknown[] as string[] };
  const methods = deps["methods"];
  if (methods !== undefined) {
    if (!Array.isArray(methods) || methods.length === 0)
      throw bad(`methods is a list of ${FETCH_METHODS.join(", ")}`);
    options.methods = methods.map((m) => {
      const upper = typeof m === "string" ? m.toUpperCase() : "";
      if (!(FETCH_METHODS as readonly string[]).includes(upper))
        throw bad(`method ${JSON.stringify(m)} is not one of ${FETCH_METHODS.join(", ")}`);
      return upper as (typeof FETCH_METHODS)[number];
    });
  }
  const maxBytes = positive(deps, "max_bytes");
  if (maxBytes !== undefined) options.maxBytes = maxBytes;
  const timeoutMs = positive(deps, "timeout_ms");
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  const redirects = deps["max_redirects"];
  if (redirects !== undefined) {
    if (typeof redirects !== "number" || !Number.isInteger(redirects) || redirects < 0)
      throw bad("max_redirects is a whole number, 0 or more");
    options.maxRedirects = redirects;
  }
  return fetchGate(options);
}
