/**
 * A malicious (or merely odd) OCI registry for the security tests: node:http on 127.0.0.1, the
 * distribution API's GET/HEAD of manifests and blobs served from memory, every request recorded
 * (its method, path and headers), and a hook that answers any request its own way first.
 * Artifacts are built by hand, so a test can put any path, size or digest in them.
 */
import { createHash } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export const sha = (b: Buffer | string) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export type Hook = (req: IncomingMessage, res: ServerResponse) => boolean;

export class FakeRegistry {
  readonly blobs = new Map<string, Buffer>();
  readonly manifests = new Map<string, Buffer>();
  readonly seen: Seen[] = [];
  hook: Hook | undefined;
  private server: Server | undefined;
  port = 0;

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  static async start(hook?: Hook): Promise<FakeRegistry> {
    const f = new FakeRegistry();
    f.hook = hook;
    f.server = createServer((req, res) => f.answer(req, res));
    await new Promise<void>((resolve) => f.server!.listen(0, "127.0.0.1", resolve));
    f.port = (f.server.address() as AddressInfo).port;
    return f;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  /**
   * Stores an artifact under `repo:tag`: each file a layer titled by its path (any text), the
   * config as given (default: a spell's, its main the first file). Returns the manifest digest.
   */
  artifact(
    repo: string,
    tag: string,
    files: { path: string; text: string; size?: number; digest?: string }[],
    extra: { config?: Record<string, unknown>; annotations?: Record<string, string> } = {},
  ): string {
    const config = Buffer.from(
      JSON.stringify(
        extra.config ?? {
          main: files[0]!.path,
          kind: "cantrip",
          name: "fake",
          requires: ">=0.0.0",
          files: files.map((f) => f.path),
        },
      ),
    );
    this.blobs.set(sha(config), config);
    const layers = files.map((f) => {
      const bytes = Buffer.from(f.text);
      this.blobs.set(sha(bytes), bytes);
      return {
        mediaType: "application/vnd.spellbook.spell.file.v1",
        digest: f.digest ?? sha(bytes),
        size: f.size ?? bytes.length,
        annotations: { "org.opencontainers.image.title": f.path },
      };
    });
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        artifactType: "application/vnd.spellbook.spell.v1",
        config: {
          mediaType: "application/vnd.spellbook.spell.config.v1+json",
          digest: sha(config),
          size: config.length,
        },
        layers,
        annotations: extra.annotations ?? {},
      }),
    );
    this.manifests.set(`${repo}:${tag}`, manifest);
    this.manifests.set(`${repo}:${sha(manifest)}`, manifest);
    return sha(manifest);
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    if (this.hook?.(req, res)) return;
    const url = req.url ?? "";
    if (url === "/v2/") return void res.writeHead(200).end("{}");
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/?]+)$/.exec(url);
    const found =
      m && (m[2] === "manifests" ? this.manifests.get(`${m[1]}:${m[3]}`) : this.blobs.get(m[3]!));
    if (!found) return void res.writeHead(404).end('{"errors":[{"code":"NOT_FOUND"}]}');
    res.writeHead(200, {
      "content-length": found.length,
      ...(m?.[2] === "manifests"
        ? {
            "content-type": "application/vnd.oci.image.manifest.v1+json",
            "docker-content-digest": sha(found),
          }
        : {}),
    });
    res.end(req.method === "HEAD" ? undefined : found);
  }
}
