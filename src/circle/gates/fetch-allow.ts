/**
 * The fetch and browser gates' allowlist. Everything here is string work on the URL as written: no name is
 * looked up and no socket opened until a URL has passed `check` (a denied host costs nothing).
 */
import { ConfigError } from "../../core/errors.js";

/** One allowlist entry: a host (or `*.domain`), the scheme it may be reached over, and its port. */
export interface AllowEntry {
  /** Lower-case host without a trailing dot; for a wildcard, the domain after `*.`. */
  host: string;
  /** `*.example.org`: any name below example.org, never example.org itself. */
  wildcard: boolean;
  scheme: "https:" | "http:";
  /** The port as a string, as WHATWG URLs keep it ("" = the scheme's default port). */
  port: string;
  /** As written, for messages. */
  text: string;
}

const normalHost = (host: string): string => host.toLowerCase().replace(/\.$/, "");

/**
 * `api.github.com` (https on 443), `*.example.org`, `https://host:8443`, `http://127.0.0.1:8080`
 * (plain http only where an entry says so). Paths, queries and credentials are refused.
 */
export function parseAllowEntry(text: unknown): AllowEntry {
  return parseAllowEntryOf(text, "fetch");
}

/** An entry of `gate`'s allow list (its name starts the messages). */
export function parseAllowEntryOf(text: unknown, gate: string): AllowEntry {
  if (typeof text !== "string" || text.trim() === "")
    throw new ConfigError(
      "bad_dependency",
      `${gate}: each allow entry is a host, e.g. api.github.com`,
    );
  const raw = text.trim();
  const schemeMatch = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw);
  const scheme = (schemeMatch?.[1]?.toLowerCase() ?? "https") + ":";
  if (scheme !== "https:" && scheme !== "http:")
    throw new ConfigError(
      "bad_dependency",
      `${gate}: allow ${JSON.stringify(raw)}: only http and https`,
    );
  let rest = schemeMatch ? raw.slice(schemeMatch[0].length) : raw;
  const wildcard = rest.startsWith("*.");
  if (wildcard) rest = rest.slice(2);
  let url: URL;
  try {
    url = new URL(`${scheme}//${rest}`);
  } catch {
    throw new ConfigError("bad_dependency", `${gate}: allow ${JSON.stringify(raw)} is not a host`);
  }
  if (
    url.username ||
    url.password ||
    url.pathname !== "/" ||
    url.search ||
    url.hash ||
    rest.includes("*")
  )
    throw new ConfigError(
      "bad_dependency",
      `${gate}: allow ${JSON.stringify(raw)}: write a host (with an optional scheme and port), or *.domain`,
    );
  return {
    host: normalHost(url.hostname),
    wildcard,
    scheme: scheme,
    port: url.port,
    text: raw,
  };
}

/** The URL the entity asked for, parsed; an error that names what is wrong with it. */
export function parseTarget(raw: unknown, base?: URL, gate = "fetch"): URL {
  if (typeof raw !== "string" || raw.trim() === "")
    throw new Error(`${gate}: url must be a string`);
  let url: URL;
  try {
    url = base ? new URL(raw, base) : new URL(raw);
  } catch {
    throw new Error(
      `${gate}: url must be an absolute http(s) URL, e.g. https://api.github.com/zen`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new Error(`${gate}: scheme ${url.protocol} is not allowed (http and https only)`);
  if (url.username || url.password)
    throw new Error(`${gate}: credentials in the URL are refused (${url.hostname})`);
  return url;
}

const hostMatches = (entry: AllowEntry, url: URL): boolean => {
  const host = normalHost(url.hostname);
  return entry.wildcard ? host.endsWith(`.${entry.host}`) : host === entry.host;
};

/** Whether an entry lets this URL through: host, scheme and port all match. */
export function entryAllows(entry: AllowEntry, url: URL): boolean {
  return url.protocol === entry.scheme && url.port === entry.port && hostMatches(entry, url);
}

/** Throws the gate's denial (naming the host, never the path or query) unless some entry allows the URL. */
export function checkAllowed(allow: readonly AllowEntry[], url: URL, gate = "fetch"): void {
  if (allow.some((e) => entryAllows(e, url))) return;
  if (allow.length === 0)
    throw new Error(
      `${gate}: host ${url.hostname} is not allowed: the allowlist is empty (${gate}: { allow: [${url.hostname}] })`,
    );
  const other = allow.filter((e) => hostMatches(e, url)).map((e) => e.text);
  throw new Error(
    other.length
      ? `${gate}: ${url.protocol}//${url.host} is not allowed: host ${url.hostname} is allowed only as ${other.join(", ")}`
      : `${gate}: host ${url.hostname} is not allowed (allow: ${allow.map((e) => e.text).join(", ")})`,
  );
}

/** A URL as messages show it: scheme, host, port and path; never a query or fragment (tokens live there). */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
