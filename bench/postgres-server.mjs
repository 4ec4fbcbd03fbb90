// A real PostgreSQL for the benches (loom-pg, scale): initdb into a temp dir as the `postgres`
// user when root, a free loopback port, fsync off as in the tests. `startPostgres(dir)` resolves
// to { url, pid, stop } once the server is ready, or null when PostgreSQL is not installed.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

function bin() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const v = readdirSync(root).filter((d) => existsSync(join(root, d, "bin", "initdb")));
  return v.length ? join(root, v.sort((a, b) => b - a)[0], "bin") : null;
}

export async function startPostgres(dir) {
  const pgBin = bin();
  if (!pgBin) return null;
  const root = process.getuid() === 0;
  const as = (cmd, args) =>
    root
      ? ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", cmd, ...args]]
      : [cmd, args];
  if (root) spawnSync("chown", ["postgres:postgres", dir]);
  const data = join(dir, "data");
  const [c, a] = as(join(pgBin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "--no-sync",
  ]);
  if (spawnSync(c, a).status !== 0) return null;
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const [pc, pa] = as(join(pgBin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-h",
    "127.0.0.1",
    "-k",
    dir,
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
  ]);
  const child = spawn(pc, pa, { stdio: ["ignore", "ignore", "pipe"] });
  await new Promise((resolve, reject) => {
    let log = "";
    child.stderr.on("data", (d) => {
      log += d;
      if (log.includes("ready to accept connections")) resolve();
    });
    child.once("exit", () => reject(new Error(log)));
  });
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pid: child.pid,
    stop: () => child.kill("SIGQUIT"),
  };
}
