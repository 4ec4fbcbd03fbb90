// A real PostgreSQL on loopback, for the tests (tests/support/postgres.ts adds vitest's hooks)
// and the benches (bench/loom-pg.bench.mjs, bench/scale.bench.mjs, run with plain node): plain
// JavaScript so both can load it; its types are in postgres-server.d.mts.
//
// Debian's `postgres` binaries, a data directory in a temp dir, listening on 127.0.0.1 on a free
// port (unix sockets in the temp dir), no durability (fsync off). `initdb` is run once per machine and version
// into a template directory that later servers copy (a copy is far cheaper than an initdb).
// initdb and postgres refuse to run as root: as root, both run as the `postgres` user (setpriv)
// with the temp dirs chowned to it.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export const POSTGRES_MISSING = "PostgreSQL not installed: apt-get install postgresql";

/** The directory holding initdb and postgres, or null when PostgreSQL is not installed. */
export const postgresBin = findBin();

function findBin() {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const found = which.stdout.trim();
  return which.status === 0 && found ? found.replace(/\/initdb$/, "") : null;
}

const asRoot = process.getuid?.() === 0;

/** Runs a command as the postgres user when we are root (initdb and postgres refuse root). */
function asPostgres(command, args) {
  if (!asRoot) return [command, args];
  return ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", command, ...args]];
}

function chownToPostgres(dir) {
  if (asRoot) spawnSync("chown", ["-R", "postgres:postgres", dir], { stdio: "ignore" });
}

/**
 * The initdb'd template directory, made once per machine, version and user (atomically, by
 * rename): root's belongs to postgres (0700), which another user running the tests cannot copy.
 */
function template(bin) {
  const user = process.getuid?.() ?? "any";
  const path = join(tmpdir(), `spellbook-pg-template-${user}-${bin.replace(/\W+/g, "_")}`);
  if (existsSync(join(path, "PG_VERSION"))) return path;
  const building = mkdtempSync(join(tmpdir(), "spellbook-pg-initdb-"));
  chownToPostgres(building);
  const data = join(building, "data");
  const [cmd, args] = asPostgres(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
    "--no-instructions",
  ]);
  const made = spawnSync(cmd, args, { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`initdb failed: ${made.stderr || made.stdout}`);
  try {
    renameSync(data, path);
  } catch {
    // Another test file made it meanwhile: theirs is as good.
  }
  rmSync(building, { recursive: true, force: true });
  return path;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

let databases = 0;

/** The tests' settings: no durability, and small, for many servers at once on one machine. */
export const TEST_SETTINGS = {
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  max_connections: "60",
  shared_buffers: "16MB",
};

/**
 * Starts a server with these `-c` settings; resolves once it accepts connections (its "ready"
 * log line, then a query).
 */
export async function startPostgres(settings = TEST_SETTINGS) {
  const bin = postgresBin;
  if (!bin) throw new Error(POSTGRES_MISSING);
  const dir = mkdtempSync(join(tmpdir(), "spellbook-pg-"));
  const data = join(dir, "data");
  cpSync(template(bin), data, { recursive: true });
  chownToPostgres(dir);
  const port = await freePort();
  const [cmd, args] = asPostgres(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-h",
    "127.0.0.1",
    "-k",
    dir,
    ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ]);
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  await ready(child);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await query(url, "SELECT 1");
  let stopped = null;
  return {
    port,
    url,
    pid: child.pid,
    async createDatabase(name = `db_${process.pid}_${++databases}`) {
      await query(url, `CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop() {
      stopped ??= new Promise((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", done);
        child.kill("SIGQUIT"); // postgres's immediate shutdown (pg_ctl stop -m immediate)
      });
      return stopped;
    },
  };
}

/** Resolves on the server's "ready to accept connections" line; rejects if it exits first. */
function ready(child) {
  return new Promise((resolve, reject) => {
    let log = "";
    const onData = (chunk) => {
      log += chunk.toString();
      if (log.includes("ready to accept connections")) {
        child.stderr.off("data", onData);
        child.stderr.resume(); // keep draining: a full pipe would block the server
        child.off("exit", onExit);
        resolve();
      }
    };
    const onExit = (code) =>
      reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`));
    child.stderr.on("data", onData);
    child.once("exit", onExit);
  });
}

async function query(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
