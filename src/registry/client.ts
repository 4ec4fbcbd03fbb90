/**
 * A small client of the OCI distribution spec over Node's fetch (undici), for the parts a spell
 * needs (docs/design/REGISTRY.md): the `/v2/` check, blobs (HEAD, GET, a monolithic upload:
 * POST then PUT), manifests (GET, PUT by tag or digest), and the auth of a 401's
 * `WWW-Authenticate` challenge — Basic, or Bearer through the token endpoint it names (the
 * Docker token flow the spec refers to). Every blob and manifest read is checked against its
 * digest before anything uses it.
 *
 * Credentials go only to the registry's own origin, or to a token realm on the same host or over
 * HTTPS; redirects are followed by hand and lose the Authorization header when they leave the
 * origin. Errors name the host and repository, never a credential.
 */
import { createHash } from "node:crypto";
import { SystemError } from "../core/errors.js";
import type { Credential } from "./credentials.js";
import {
  authorization,
  errorCode,
  parseChallenge,
  readLimited,
  unreachable,
  type Challenge,
} from "./http.js";
import { isLoopback } from "./reference.js";

export { parseChallenge } from "./http.js";

export const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const MAX_MANIFEST = 4 * 1024 * 1024;
const MAX_REDIRECTS = 5;

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

export const sha256 = (bytes: Uint8Array): string =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

export class RegistryClient {
  readonly host: string;
  readonly base: string;
  private readonly credential: Credential | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly timeoutMs: number;
  /** The Authorization header that last worked, per scope. */
  private readonly auth = new Map<string, string>();

  constructor(options: ClientOptions) {
    this.host = options.host;
    const plain = isLoopback(options.host) || options.plainHttp === true;
    this.base = `${plain ? "http" : "https"}://${options.host}`;
    this.credential = options.credential;
    this.signal = options.signal;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** `GET /v2/`: the registry answers and the credential (if any) is accepted. */
  async check(): Promise<void> {
    const res = await this.request("GET", "/v2/", { scope: "" });
    await this.expect(res, [200], "the registry's API check (/v2/)", "");
  }

  async hasBlob(repo: string, digest: string): Promise<boolean> {
    const res = await this.request("HEAD", `/v2/${repo}/blobs/${digest}`, { scope: pull(repo) });
    if (res.status === 404) return false;
    await this.expect(res, [200], `blob ${digest}`, repo);
    return true;
  }

  /** Uploads a blob unless the repository has it (a POST, then one PUT with the bytes). */
  async pushBlob(repo: string, bytes: Uint8Array, digest = sha256(bytes)): Promise<string> {
    if (await this.hasBlob(repo, digest)) return digest;
    const scope = push(repo);
    const started = await this.request("POST", `/v2/${repo}/blobs/uploads/`, { scope });
    await this.expect(started, [202], "a blob upload", repo);
    const location = started.headers.get("location");
    if (!location) throw this.broken(repo, "the upload answer has no Location");
    const url = new URL(location, `${this.base}/`);
    url.searchParams.set("digest", digest);
    const done = await this.request("PUT", url.href, {
      scope,
      body: bytes,
      headers: { "content-type": "application/octet-stream" },
    });
    await this.expect(done, [201, 204], `blob ${digest}`, repo);
    return digest;
  }

  /** A blob, checked against its digest (and size, when given) before it is returned. */
  async getBlob(repo: string, digest: string, size?: number): Promise<Buffer> {
    const res = await this.request("GET", `/v2/${repo}/blobs/${digest}`, { scope: pull(repo) });
    await this.expect(res, [200], `blob ${digest}`, repo);
    const bytes = await readLimited(res, size ?? Number.MAX_SAFE_INTEGER);
    if (bytes === undefined || (size !== undefined && bytes.length !== size))
      throw mismatch(
        `blob ${digest} of ${this.host}/${repo}`,
        "its size differs from the manifest's",
      );
    if (sha256(bytes) !== digest)
      throw mismatch(`blob ${digest} of ${this.host}/${repo}`, "its bytes do not match its digest");
    return bytes;
  }

  /** A manifest by tag or digest: its bytes and their digest (checked when asked by digest). */
  async getManifest(
    repo: string,
    key: string,
  ): Promise<{ bytes: Buffer; digest: string; mediaType: string }> {
    const res = await this.request("GET", `/v2/${repo}/manifests/${key}`, {
      scope: pull(repo),
      headers: { accept: OCI_MANIFEST },
    });
    if (res.status === 404) {
      await res.body?.cancel();
      throw new SystemError(
        "registry_not_found",
        `${this.host}/${repo}${key.startsWith("sha256:") ? "@" : ":"}${key} is not in the registry`,
        { status: 404 },
      );
    }
    await this.expect(res, [200], `manifest ${key}`, repo);
    const bytes = await readLimited(res, MAX_MANIFEST);
    if (bytes === undefined)
      throw mismatch(`manifest ${key} of ${this.host}/${repo}`, "it is over 4 MiB");
    const digest = sha256(bytes);
    const claimed = res.headers.get("docker-content-digest");
    if (key.startsWith("sha256:") && digest !== key)
      throw mismatch(
        `manifest ${key} of ${this.host}/${repo}`,
        "its bytes do not match its digest",
      );
    if (claimed && /^sha256:/.test(claimed) && claimed !== digest)
      throw mismatch(
        `manifest ${key} of ${this.host}/${repo}`,
        `the registry says ${claimed}, its bytes are ${digest}`,
      );
    return { bytes, digest, mediaType: res.headers.get("content-type") ?? "" };
  }

  /** Stores a manifest under a tag (or its digest); the registry's digest is checked. */
  async putManifest(
    repo: string,
    key: string,
    bytes: Uint8Array,
    mediaType = OCI_MANIFEST,
  ): Promise<string> {
    const res = await this.request("PUT", `/v2/${repo}/manifests/${key}`, {
      scope: push(repo),
      body: bytes,
      headers: { "content-type": mediaType },
    });
    await this.expect(res, [201], `manifest ${key}`, repo);
    const digest = sha256(bytes);
    const said = res.headers.get("docker-content-digest");
    if (said && said !== digest)
      throw mismatch(
        `manifest ${key} of ${this.host}/${repo}`,
        `the registry stored ${said}, not ${digest}`,
      );
    return digest;
  }

  /** One request, authorised as the registry's challenge asks (once), redirects followed by hand. */
  private async request(
    method: string,
    path: string,
    init: { scope: string; body?: Uint8Array; headers?: Record<string, string> },
  ): Promise<Response> {
    const url = new URL(path, `${this.base}/`);
    const first = await this.send(method, url, init, this.auth.get(init.scope));
    if (first.status !== 401) return first;
    const header = first.headers.get("www-authenticate") ?? "";
    await first.body?.cancel();
    const authorization = await this.authorize(parseChallenge(header), init.scope);
    if (authorization === undefined) return this.send(method, url, init, undefined);
    this.auth.set(init.scope, authorization);
    return this.send(method, url, init, authorization);
  }

  /** The Authorization header a challenge asks for; undefined when there is nothing to send. */
  private authorize(challenge: Challenge | undefined, scope: string): Promise<string | undefined> {
    return authorization(challenge, scope, {
      credential: this.credential,
      base: this.base,
      get: (url, headers) => this.fetchOnce("GET", url, headers),
      refused: (status) => this.refused("", status),
      broken: (why) => this.broken("", why),
    });
  }

  private async send(
    method: string,
    url: URL,
    init: { body?: Uint8Array; headers?: Record<string, string> },
    authorization: string | undefined,
  ): Promise<Response> {
    const origin = url.origin;
    let current = url;
    for (let hop = 0; ; hop++) {
      const sameOrigin = current.origin === origin;
      const res = await this.fetchOnce(
        method,
        current,
        {
          ...init.headers,
          ...(authorization && sameOrigin ? { authorization } : {}),
        },
        init.body,
      );
      const location = res.headers.get("location");
      if (
        ![301, 302, 303, 307, 308].includes(res.status) ||
        !location ||
        method === "POST" ||
        method === "PUT"
      )
        return res;
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw this.broken("", "it redirected too many times");
      current = new URL(location, current);
      if (
        current.protocol !== "https:" &&
        !(current.protocol === "http:" && isLoopback(current.host))
      )
        throw this.broken("", `it redirected to ${current.protocol} on ${current.host}, not HTTPS`);
    }
  }

  private async fetchOnce(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body?: Uint8Array,
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout;
    try {
      return await fetch(url, {
        method,
        headers,
        redirect: "manual",
        signal,
        ...(body ? { body: body as unknown as ArrayBuffer } : {}),
      });
    } catch (err) {
      throw new SystemError("registry_unreachable", unreachable(url.host, err), { cause: err });
    }
  }

  private async expect(res: Response, ok: number[], what: string, repo: string): Promise<void> {
    if (ok.includes(res.status)) return;
    const code = await errorCode(res);
    if (res.status === 401 || res.status === 403) throw this.refused(repo, res.status);
    throw new SystemError(
      "registry_error",
      `the registry ${this.host} refused ${what}${repo ? ` of ${repo}` : ""}: HTTP ${res.status}${code ? ` ${code}` : ""}`,
      { status: res.status },
    );
  }

  private refused(repo: string, status: number): SystemError {
    const where = repo ? `${this.host}/${repo}` : this.host;
    return new SystemError(
      "registry_auth",
      this.credential
        ? `the registry ${where} refused the stored credential (HTTP ${status}): log in again with spell login ${this.host}`
        : `the registry ${where} needs a credential (HTTP ${status}): log in with spell login ${this.host}`,
      { status },
    );
  }

  private broken(repo: string, why: string): SystemError {
    return new SystemError(
      "registry_error",
      `the registry ${this.host}${repo ? `/${repo}` : ""} misbehaved: ${why}`,
    );
  }
}

const pull = (repo: string) => `repository:${repo}:pull`;
const push = (repo: string) => `repository:${repo}:pull,push`;

function mismatch(what: string, why: string): SystemError {
  return new SystemError("registry_digest", `${what} is refused: ${why}`);
}
