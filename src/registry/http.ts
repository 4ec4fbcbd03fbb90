import { SystemError } from "../core/errors.js";
import type { Credential } from "./credentials.js";
import { DIGEST, isLoopback } from "./reference.js";

/**
 * The HTTP details of the registry client (client.ts): a 401's challenge read, a body read
 * within a limit, the registry's error code, and why a request got no answer, in words.
 */

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** What a RegistryClient (client.ts) is made with. */
export interface ClientOptions {
  /** `HOST[:PORT]` of the registry. */
  host: string;
  /** Its credential, if any (sent only where the file's comment says). */
  credential?: Credential | undefined;
  /** Plain HTTP for a host that is not loopback (`--plain-http`). */
  plainHttp?: boolean;
  signal?: AbortSignal | undefined;
  /** Per request; default 60 s. */
  timeoutMs?: number;
}

/** Parses `Bearer realm="…",service="…",scope="…"` (or `Basic realm="…"`). */
export function parseChallenge(header: string): Challenge | undefined {
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  for (let p = re.exec(m[2]!); p; p = re.exec(m[2]!))
    params[p[1]!.toLowerCase()] = (p[2] ?? p[3] ?? "").replace(/\\(.)/g, "$1");
  return { scheme: m[1]!.toLowerCase(), params };
}

/** The registry's first error code (`{ errors: [{ code }] }`), words it chose, not ours. */
export async function errorCode(res: Response): Promise<string> {
  // An error's body is read to 64 KiB at most: a registry cannot flood the client through it.
  const bytes = await readLimited(res, 64 * 1024).catch(() => undefined);
  const text = bytes?.toString("utf8") ?? "";
  try {
    const code = (JSON.parse(text) as { errors?: { code?: unknown }[] }).errors?.[0]?.code;
    return typeof code === "string" && /^[A-Z_]{1,40}$/.test(code) ? code : "";
  } catch {
    return "";
  }
}

/** The body, or undefined when it is longer than `limit`. */
export async function readLimited(res: Response, limit: number): Promise<Buffer | undefined> {
  const length = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(length) && length > limit) {
    await res.body?.cancel();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (!res.body) return Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > limit) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** Why a request failed before any answer, in words (the cause's code when Node gives one). */
export function why(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const words: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "no such host",
    EAI_AGAIN: "the host name did not resolve",
    ECONNRESET: "the connection was reset",
    ETIMEDOUT: "the connection timed out",
    EHOSTUNREACH: "the host is unreachable",
  };
  if (code && Object.hasOwn(words, code)) return `${words[code]} (${code})`;
  if ((err as Error).name === "TimeoutError") return "no answer in time";
  if ((err as Error).name === "AbortError") return "the request was aborted";
  if (code) return code;
  return typeof cause?.message === "string" ? cause.message : (err as Error).message;
}

/**
 * Why the registry `host` could not be reached, in words; a host name of one label that does not
 * resolve is most likely a reference written without its registry (`acme/spells/x`, as Docker
 * Hub's names read): that is said, with the form that names one.
 */
export function unreachable(host: string, err: unknown): string {
  const said = `cannot reach the registry ${host}: ${why(err)}`;
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  const oneLabel = /^[A-Za-z0-9-]+$/.test(host) && host !== "localhost";
  if (!oneLabel || (code !== "ENOTFOUND" && code !== "EAI_AGAIN")) return said;
  return `${said}; a reference begins with the registry's host, so "${host}/…" names the host ${JSON.stringify(host)} (Docker Hub is docker.io/${host}/…, a local registry localhost:5000/${host}/…)`;
}

/** A bearer token (RFC 6750 `b64token`), at most 8 KiB. */
const TOKEN = /^[A-Za-z0-9\-._~+/]{1,8192}=*$/;

/** What `authorization` needs of the client: its credential, its origin, a GET, its errors. */
export interface AuthContext {
  /** Remembers a secret (a token) so that no error of the client holds it. */
  secret(value: string): void;
  credential: Credential | undefined;
  base: string;
  get(url: URL, headers: Record<string, string>): Promise<Response>;
  refused(status: number): Error;
  broken(why: string): Error;
}

/**
 * The Authorization header a 401's challenge asks for: Basic with the credential, or a Bearer
 * token from the challenge's realm (service and scope as the challenge names them); undefined
 * when there is nothing to send. The credential goes to the realm only on the registry's own
 * host or over HTTPS.
 */
export async function authorization(
  challenge: Challenge | undefined,
  scope: string,
  ctx: AuthContext,
): Promise<string | undefined> {
  const { credential } = ctx;
  const basic = credential
    ? `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString("base64")}`
    : undefined;
  if (!challenge || challenge.scheme === "basic") return basic;
  if (challenge.scheme !== "bearer") return undefined;
  let url: URL;
  try {
    url = new URL(challenge.params["realm"] ?? "");
  } catch {
    throw ctx.broken("its Bearer challenge's realm is not a URL");
  }
  if (challenge.params["service"]) url.searchParams.set("service", challenge.params["service"]);
  const wanted = challenge.params["scope"] ?? scope;
  if (wanted) url.searchParams.set("scope", wanted);
  const trusted = url.protocol === "https:" || url.host === new URL(ctx.base).host;
  const res = await ctx.get(url, basic && trusted ? { authorization: basic } : {});
  if (res.status !== 200) await res.body?.cancel();
  if (res.status === 401 || res.status === 403) throw ctx.refused(res.status);
  if (res.status !== 200) throw ctx.broken(`its token endpoint answered ${res.status}`);
  const raw = await readLimited(res, 64 * 1024).catch(() => undefined);
  if (raw === undefined) throw ctx.broken("its token endpoint's answer is over 64 KiB");
  let body: { token?: unknown; access_token?: unknown } = {};
  try {
    body = (JSON.parse(raw.toString("utf8")) ?? {}) as typeof body;
  } catch {
    // no token: said below
  }
  const token = typeof body.token === "string" ? body.token : body.access_token;
  if (typeof token !== "string" || token === "")
    throw ctx.broken("its token endpoint gave no token");
  // RFC 6750's token characters only: anything else would be refused as a header value by
  // fetch, in an error that quotes it.
  if (!TOKEN.test(token)) throw ctx.broken("its token endpoint gave a malformed token");
  ctx.secret(token);
  return `Bearer ${token}`;
}

/**
 * Why a request may not go to `url`, outside the registry's origin (`base`), or undefined: over
 * HTTPS it may; over plain HTTP only when the registry itself is reached so, and to loopback or
 * with `--plain-http`. The host is the registry's text: named only when it is a plain host.
 */
export function leaving(url: URL, base: string, plainHttp: boolean): string | undefined {
  if (url.protocol === "https:") return undefined;
  const plainBase = base.startsWith("http:");
  if (url.protocol === "http:" && plainBase && (isLoopback(url.host) || plainHttp))
    return undefined;
  const host = /^[A-Za-z0-9.:[\]-]{1,253}$/.test(url.host) ? url.host : "another host";
  return `it sent the client to ${url.protocol.replace(/[^a-z+.-]/g, "")} on ${host}, not HTTPS`;
}

/** The token scopes of pulling and pushing a repository. */
export const pull = (repo: string) => `repository:${repo}:pull`;
export const push = (repo: string) => `repository:${repo}:pull,push`;

export function mismatch(what: string, why: string): SystemError {
  return new SystemError("registry_digest", `${what} is refused: ${why}`);
}

/**
 * The registry's digest against ours, in words; a malformed one is never printed as sent (it is
 * the registry's text, not a digest: it could echo a credential).
 */
export function differs(said: string, ours: string): string {
  return DIGEST.test(said)
    ? `the registry says ${said}, its bytes are ${ours}`
    : `the registry sent a malformed digest; its bytes are ${ours}`;
}
