// `spell worker` whose Redis cannot be reached when it starts: it says so, names the Redis and
// ends (it was left reconnecting for ever, printing only "Connection is closed."); and a worker
// still reaching a Redis that never answers stops on SIGTERM (it ignored it). The "Redis" here
// is a loopback port closed, or a loopback server that accepts and never answers.
import { createServer, type Server, type Socket } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { needs, notBuilt } from "../support/needs.js";
import { startWorker, type WorkerProcess } from "./support/workers.js";

const built = needs(notBuilt());
const cwd = mkdtempSync(join(tmpdir(), "worker-start-"));
const started: WorkerProcess[] = [];
const servers: { server: Server; sockets: Socket[] }[] = [];
afterEach(async () => {
  for (const w of started.splice(0)) {
    w.child.kill("SIGKILL");
    await w.stop();
  }
  for (const { server, sockets } of servers.splice(0)) {
    for (const s of sockets) s.destroy(); // never read: it would never see the worker's end
    await new Promise((r) => server.close(r));
  }
});

/** A server on loopback that accepts every connection and says nothing; resolves on the first. */
async function silent(): Promise<{ port: number; connected: Promise<void> }> {
  const sockets: Socket[] = [];
  let connected!: () => void;
  const first = new Promise<void>((r) => (connected = r));
  const server = createServer((s) => {
    sockets.push(s);
    connected();
  });
  servers.push({ server, sockets });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as { port: number }).port, connected: first };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const exited = (w: WorkerProcess) =>
  new Promise<number | null>((resolve) => {
    if (w.child.exitCode !== null) return resolve(w.child.exitCode);
    w.child.once("exit", (code) => resolve(code));
  });

describe("spell worker before its Redis is reached", () => {
  built.it(
    "a refused Redis: the error names it and why, and the worker ends (exit 4)",
    async () => {
      const port = await closedPort();
      const w = startWorker(["--queue", `redis://user:s3cret-pass@127.0.0.1:${port}`], {}, cwd);
      started.push(w);
      expect(await exited(w)).toBe(4);
      expect(w.log()).toContain(`cannot reach the queue's Redis at redis://127.0.0.1:${port}`);
      expect(w.log()).toMatch(/ECONNREFUSED/);
      expect(w.log()).not.toContain("s3cret-pass");
    },
  );

  built.it(
    "a Redis that never answers: SIGTERM stops the worker, which says so (exit 0)",
    async () => {
      const { port, connected } = await silent();
      const w = startWorker(["--queue", `redis://127.0.0.1:${port}`], {}, cwd);
      started.push(w);
      await connected; // it is waiting on the Redis's answer
      w.child.kill("SIGTERM");
      expect(await exited(w)).toBe(0);
      expect(w.log()).toContain("spell worker: stopped before the queue's Redis was reached");
    },
  );
});
