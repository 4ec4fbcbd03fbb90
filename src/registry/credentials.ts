/**
 * Registry credentials from the Docker config (`$DOCKER_CONFIG/config.json`, else
 * `~/.docker/config.json`): an `auths` entry (`auth`, base64 of `user:password`, or `username`
 * and `password`), or a credential helper (`credHelpers` for the host, else `credsStore`), run
 * as `docker-credential-NAME get` with the host on its stdin. `spell login` writes an `auths`
 * entry. A credential is only ever sent to the host it was stored for (client.ts); it is never
 * printed, and every error that could hold it is redacted by the caller.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { ConfigError } from "../core/errors.js";

export interface Credential {
  username: string;
  password: string;
}

/** The Docker config file this environment reads and `spell login` writes. */
export function dockerConfigPath(env: NodeJS.ProcessEnv): string {
  const dir = env["DOCKER_CONFIG"] || join(env["HOME"] || homedir(), ".docker");
  return join(dir, "config.json");
}

interface DockerConfig {
  auths?: Record<string, { auth?: string; username?: string; password?: string }>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
  [key: string]: unknown;
}

function readConfig(path: string): DockerConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return {};
  }
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as DockerConfig) : {};
  } catch {
    throw new ConfigError("registry_config", `${path} is not valid JSON`);
  }
}

/** The keys a Docker config may file a host under (Docker Hub's old URL forms included). */
function keysFor(host: string): string[] {
  return [host, `https://${host}`, `http://${host}`, `https://${host}/v1/`, `https://${host}/v2/`];
}

/** The stored credential for `host`, if any. */
export function credentialFor(host: string, env: NodeJS.ProcessEnv): Credential | undefined {
  const config = readConfig(dockerConfigPath(env));
  for (const key of keysFor(host)) {
    const entry = config.auths?.[key];
    if (!entry) continue;
    if (typeof entry.auth === "string" && entry.auth !== "") {
      const plain = Buffer.from(entry.auth, "base64").toString("utf8");
      const colon = plain.indexOf(":");
      if (colon > 0) return { username: plain.slice(0, colon), password: plain.slice(colon + 1) };
    }
    if (typeof entry.username === "string" && typeof entry.password === "string")
      return { username: entry.username, password: entry.password };
  }
  const helper = config.credHelpers?.[host] ?? config.credsStore;
  return typeof helper === "string" && /^[A-Za-z0-9_.-]+$/.test(helper)
    ? fromHelper(helper, host, env)
    : undefined;
}

/** Asks a Docker credential helper; nothing when it has no entry or cannot run. */
function fromHelper(helper: string, host: string, env: NodeJS.ProcessEnv): Credential | undefined {
  const done = spawnSync(`docker-credential-${helper}`, ["get"], {
    input: host,
    env,
    encoding: "utf8",
    timeout: 10_000,
  });
  if (done.status !== 0 || typeof done.stdout !== "string") return undefined;
  try {
    const found = JSON.parse(done.stdout) as { Username?: unknown; Secret?: unknown };
    return typeof found.Username === "string" && typeof found.Secret === "string"
      ? { username: found.Username, password: found.Secret }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Stores a credential for `host` in the Docker config (mode 0600), keeping everything else. */
export function storeCredential(
  host: string,
  credential: Credential,
  env: NodeJS.ProcessEnv,
): string {
  const path = dockerConfigPath(env);
  const config = readConfig(path);
  const auth = Buffer.from(`${credential.username}:${credential.password}`).toString("base64");
  config.auths = { ...(config.auths ?? {}), [host]: { auth } };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}
