/**
 * A small client of the OCI distribution spec over Node's fetch (undici), for the parts a spell
 * needs (docs/design/REGISTRY.md): the `/v2/` check, blobs (HEAD, GET, a monolithic upload:
 * POST then PUT), manifests (GET, PUT by tag or digest), and the auth of a 401's
 * `WWW-Authenticate` challenge — Basic, or Bearer through the token endpoint it names (the
 * Docker token flow the spec refers to). Every blob and manifest read is checked against its
 * digest, within a size bound, before anything uses it. Credentials go only to the registry's
 * own origin (`send`), or to a token realm on the same host or over HTTPS (http.ts); errors name
 * the host and repository, never a credential (the password and tokens are redacted).
 */
import { createHash } from "node:crypto";
import { SystemError } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import type { Credential } from "./credentials.js";
import {
  authorization,
  leaving,
  errorCode,
  mismatch,
  differs,
  pull,
  push,
  parseChallenge,
  readLimited,
  unreachable,
  type Challenge,
  type ClientOptions,
} from "./http.js";
import { isLoopback } from "./reference.js";

export { parseChallenge, type ClientOptions } from "./http.js";

export const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const MAX_MANIFEST = 4 * 1024 * 1024;
/** The most one blob may be (a descriptor's size above it is refused before any byte is read). */
export const MAX_BLOB = 256 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export const sha256 = (bytes: Uint8Array): string =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

export class RegistryClient {
  readonly host: string;
  readonly base: string;
  private readonly credential: Credential | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly timeoutMs: number;
  private readonly plainHttp: boolean;
  /** The Authorization header that last worked, per scope. */
  private readonly auth = new Map<string, string>();
  /** The password and every token: no error of this client holds one, in any spelling. */
  private readonly secrets = new Redactor();

  constructor(options: ClientOptions) {
    this.host = options.host;
    this.plainHttp = options.plainHttp === true;
    const plain = isLoopback(options.host) || this.plainHttp;
    this.base = `${plain ? "http" : "https"}://${options.host}`;
    this.credential = options.credential;
    this.secrets.add(options.credential?.password);
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
    const bytes = await readLimited(res, Math.min(size ?? MAX_BLOB, MAX_BLOB));
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
    // A digest in another algorithm is not checked (ours is computed).
    if (claimed && /^sha256:/i.test(claimed) && claimed !== digest)
      throw mismatch(`manifest ${key} of ${this.host}/${repo}`, differs(claimed, digest));
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
      throw mismatch(`manifest ${key} of ${this.host}/${repo}`, differs(said, digest));
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
    // Only the registry's own challenge is answered: a 401 from where a redirect or an upload's
    // Location led is that host's, and no credential goes to the realm it names.
    if (first.res.status !== 401 || first.foreign) return first.res;
    const header = first.res.headers.get("www-authenticate") ?? "";
    await first.res.body?.cancel();
    const authorization = await this.authorize(parseChallenge(header), init.scope);
    if (authorization === undefined) return (await this.send(method, url, init, undefined)).res;
    this.auth.set(init.scope, authorization);
    return (await this.send(method, url, init, authorization)).res;
  }

  /** The Authorization header a challenge asks for; undefined when there is nothing to send. */
  private authorize(challenge: Challenge | undefined, scope: string): Promise<string | undefined> {
    return authorization(challenge, scope, {
      credential: this.credential,
      base: this.base,
      secret: (value) => this.secrets.add(value),
      get: (url, headers) => this.fetchOnce("GET", url, headers),
      refused: (status) => this.refused("", status),
      broken: (why) => this.broken("", why),
    });
  }

  /**
   * One request and its redirects. The Authorization header goes only to the registry's own
   * origin (not to where an upload's Location or a redirect leads), and a request leaves the
   * origin only over HTTPS — or plain HTTP to loopback, or anywhere with `--plain-http`, when
   * the registry itself is reached over plain HTTP. `foreign`: the answer is another origin's.
   */
  private async send(
    method: string,
    url: URL,
    init: { body?: Uint8Array; headers?: Record<string, string> },
    authorization: string | undefined,
  ): Promise<{ res: Response; foreign: boolean }> {
    const origin = new URL(this.base).origin;
    let current = url;
    for (let hop = 0; ; hop++) {
      const sameOrigin = current.origin === origin;
      const leaves = sameOrigin ? undefined : leaving(current, this.base, this.plainHttp);
      if (leaves) throw this.broken("", leaves);
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
        return { res, foreign: !sameOrigin };
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw this.broken("", "it redirected too many times");
      try {
        current = new URL(location, current);
      } catch {
        throw this.broken("", "it redirected to something that is not a URL");
      }
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
      // No cause kept: fetch's own errors may quote a header value.
      throw new SystemError(
        "registry_unreachable",
        this.secrets.redact(unreachable(url.host, err)),
      );
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
      this.secrets.redact(`the registry ${this.host}${repo ? `/${repo}` : ""} misbehaved: ${why}`),
    );
  }
}
