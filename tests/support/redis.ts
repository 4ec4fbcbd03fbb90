/**
 * A real `redis-server` for the queue tests: on 127.0.0.1, a free port, no persistence, its
 * folder a temp dir. Ready when it logs "Ready to accept connections" AND answers PING (events,
 * not sleeps). `restart()` stops it and starts a new one on the same port (the Redis-restart
 * fault test); `stop()` ends it. Where Debian's redis-server is not installed, `REDIS_MISSING`
 * says why the tests skip.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const found = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
/** Why the Redis tests skip, or undefined when redis-server is on PATH. */
export const REDIS_MISSING =
  found.status === 0
    ? undefined
    : "redis-server is not installed (apt-get install redis-server; CI installs it)";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** One PING over a fresh connection: resolves true on +PONG, false on any error. */
export const ping = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ host: "127.0.0.1", port });
    let text = "";
    c.once("error", () => resolve(false));
    c.on("connect", () => c.write("PING\r\n"));
    c.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes("\r\n")) {
        c.end();
        resolve(text.startsWith("+PONG"));
      }
    });
  });

export class RedisServer {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), "spell-redis-"));

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisServer> {
    const r = new RedisServer(await freePort());
    await r.launch();
    return r;
  }

  private async launch(): Promise<void> {
    const args = [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
    ];
    const child = spawn("redis-server", [...args, "--dir", this.dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    let log = "";
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`redis-server exited ${code} before it was ready:\n${log}`));
      child.once("exit", onExit);
      child.stdout.on("data", (d: Buffer) => {
        log += d.toString();
        if (log.includes("Ready to accept connections")) {
          child.off("exit", onExit);
          resolve();
        }
      });
    });
    if (!(await ping(this.port)))
      throw new Error(`redis-server on ${this.port} does not answer PING`);
  }

  /** Ends the server (SIGTERM) and waits for its exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }

  /** Stops it and starts a new, empty server on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
