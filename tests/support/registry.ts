/**
 * A real OCI registry for the sharing tests: Debian's `docker-registry` (the CNCF distribution
 * registry) on 127.0.0.1, a free port, its storage a temp dir, with or without htpasswd basic
 * auth (the bcrypt line made by apache2-utils' `htpasswd`). Ready when it logs that it listens
 * (an event, not a sleep). Where the binary is missing, `REGISTRY_MISSING` says why the tests skip.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BIN = "/usr/bin/docker-registry";
const registryFound = spawnSync(BIN, ["--version"], { encoding: "utf8" }).status === 0;
const htpasswdFound = spawnSync("htpasswd", ["-v"], { encoding: "utf8" }).error === undefined;

/** Why the registry tests skip, or undefined when the registry (and htpasswd) are installed. */
export const REGISTRY_MISSING = !registryFound
  ? "docker-registry is not installed (apt-get install docker-registry; CI installs it)"
  : !htpasswdFound
    ? "htpasswd is not installed (apt-get install apache2-utils; CI installs it)"
    : undefined;

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

export class Registry {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), "spell-registry-"));

  private constructor(readonly port: number) {}

  /** `127.0.0.1:PORT`, the host part of a reference. */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Starts a registry; with `user`, only that user and password may use it (basic auth). */
  static async start(user?: { username: string; password: string }): Promise<Registry> {
    const r = new Registry(await freePort());
    let auth = "";
    if (user) {
      const made = spawnSync("htpasswd", ["-nbB", user.username, user.password], {
        encoding: "utf8",
      });
      if (made.status !== 0) throw new Error(`htpasswd failed: ${made.stderr}`);
      writeFileSync(join(r.dir, "htpasswd"), made.stdout);
      auth = `auth:\n  htpasswd:\n    realm: spellbook-tests\n    path: ${join(r.dir, "htpasswd")}\n`;
    }
    writeFileSync(
      join(r.dir, "config.yml"),
      [
        "version: 0.1",
        "log:",
        "  level: info",
        "  accesslog:",
        "    disabled: true",
        "storage:",
        "  filesystem:",
        `    rootdirectory: ${join(r.dir, "data")}`,
        "http:",
        `  addr: 127.0.0.1:${r.port}`,
        "  secret: spellbook-tests",
        auth,
      ].join("\n"),
    );
    await r.launch();
    return r;
  }

  private launch(): Promise<void> {
    const child = spawn(BIN, ["serve", join(this.dir, "config.yml")], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", OTEL_TRACES_EXPORTER: "none" },
    });
    this.child = child;
    return new Promise((resolve, reject) => {
      let log = "";
      const onData = (d: Buffer) => {
        log += d.toString();
        if (log.includes("listening on")) {
          child.stderr.off("data", onData);
          child.stdout.off("data", onData);
          child.stderr.resume();
          child.stdout.resume();
          resolve();
        }
      };
      child.stderr.on("data", onData);
      child.stdout.on("data", onData);
      child.once("exit", (code) => reject(new Error(`docker-registry exited (${code}): ${log}`)));
    });
  }

  /** The storage path of a blob (the tampering test rewrites it). */
  blobPath(digest: string): string {
    const hex = digest.replace(/^sha256:/, "");
    return join(
      this.dir,
      "data",
      "docker",
      "registry",
      "v2",
      "blobs",
      "sha256",
      hex.slice(0, 2),
      hex,
      "data",
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const done = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await done;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A loopback front of a registry that speaks the token flow of the distribution spec's auth: a
 * request without a valid Bearer token gets 401 and `WWW-Authenticate: Bearer realm=…/token,
 * service=…,scope=…`; `/token` gives a token for the user's Basic credential (401 otherwise);
 * with a token, requests pass to the registry behind. `scopes` records what was asked for.
 */
export async function tokenFront(
  behind: Registry,
  user: { username: string; password: string },
): Promise<{ host: string; scopes: string[]; close: () => Promise<void> }> {
  const { createServer: createHttp, request } = await import("node:http");
  const { randomBytes } = await import("node:crypto");
  const tokens = new Set<string>();
  const scopes: string[] = [];
  const basic = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString("base64")}`;
  const server = createHttp((req, res) => {
    const url = new URL(req.url ?? "/", "http://front");
    if (url.pathname === "/token") {
      scopes.push(url.searchParams.get("scope") ?? "");
      if (req.headers.authorization !== basic) {
        res
          .writeHead(401, { "content-type": "application/json" })
          .end('{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
      const token = randomBytes(12).toString("hex");
      tokens.add(token);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token }));
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!bearer || !tokens.has(bearer)) {
      const repo = /^\/v2\/(.+?)\/(?:blobs|manifests)\//.exec(url.pathname)?.[1];
      const actions = req.method === "GET" || req.method === "HEAD" ? "pull" : "pull,push";
      const scope = repo ? `,scope="repository:${repo}:${actions}"` : "";
      res
        .writeHead(401, {
          "www-authenticate": `Bearer realm="http://${req.headers.host}/token",service="spellbook-tests"${scope}`,
          "content-type": "application/json",
        })
        .end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    const headers = { ...req.headers };
    delete headers.authorization;
    const out = request(
      { host: "127.0.0.1", port: behind.port, method: req.method, path: req.url, headers },
      (back) => {
        res.writeHead(back.statusCode ?? 502, back.headers);
        back.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    scopes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
