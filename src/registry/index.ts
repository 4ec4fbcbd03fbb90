/**
 * Spells shared through an OCI registry (docs/design/REGISTRY.md): the face the loader and the
 * CLI use. `RemoteSpells` fetches references (each once per process, under a lock when there is
 * one); `lockSpell` writes `spell.lock`; `checkScripts` holds MCP scripts to it.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { sha256 } from "./client.js";
import { spellFiles, under } from "./files.js";
import { LOCK_NAME, lockPathFor, readLock, writeLock, type Lock } from "./lock.js";
import { fetchSpell, type Fetched, type RemoteOptions } from "./remote.js";
import { isRemote } from "./reference.js";

export { isRemote, parseReference, formatReference, isLoopback, OCI_SCHEME } from "./reference.js";
export { LOCK_NAME, lockPathFor, readLock, type Lock } from "./lock.js";
export { cacheRoot, fetchSpell, clientFor, type Fetched, type RemoteOptions } from "./remote.js";
export { spellFiles } from "./files.js";
export { credentialFor } from "./credentials.js";

/** Turns a reference into the path of its main spell file (the loader's `remote`). */
export type RemoteResolver = (ref: string) => Promise<string>;

export class RemoteSpells {
  private readonly fetched = new Map<string, Promise<Fetched>>();
  constructor(readonly options: RemoteOptions) {}

  /** The spell a reference names, fetched once per process. */
  fetch(text: string): Promise<Fetched> {
    let found = this.fetched.get(text);
    if (!found) {
      found = fetchSpell(text, this.options);
      this.fetched.set(text, found);
    }
    return found;
  }

  readonly resolve: RemoteResolver = async (text) => (await this.fetch(text)).main;

  /**
   * Fetches every reference `main` reaches, through its local child spells and the fetched
   * ones, so a failure is known (and its exit given) before the spell loads.
   */
  async fetchAll(main: string, root = dirname(main)): Promise<Fetched[]> {
    const all: Fetched[] = [];
    const seen = new Set<string>();
    const queue = spellFiles(main, root).remotes.map((r) => r.ref);
    while (queue.length > 0) {
      const text = queue.shift()!;
      if (seen.has(text)) continue;
      seen.add(text);
      const got = await this.fetch(text);
      all.push(got);
      queue.push(...spellFiles(got.main, got.dir).remotes.map((r) => r.ref));
    }
    return all;
  }
}

/**
 * The loader's resolver when none is handed in: the lock beside `file` (if any), the
 * environment's credentials and cache; the registry code loaded on first use.
 */
export function resolverFor(file: string, env: NodeJS.ProcessEnv): RemoteResolver {
  let spells: RemoteSpells | undefined;
  return (text) => {
    spells ??= new RemoteSpells({ env, lock: readLock(lockPathFor(file)) });
    return spells.resolve(text);
  };
}

/** The MCP scripts of a local spell hashed as the lock holds them; a differing one is refused. */
export function checkScripts(main: string, lock: Lock): void {
  const root = dirname(lock.file);
  for (const script of spellFiles(main, root).scripts) {
    const now = sha256(readFileSync(under(root, script)));
    const locked = Object.hasOwn(lock.scripts, script) ? lock.scripts[script] : undefined;
    if (locked === undefined)
      throw new ConfigError(
        "lock_mismatch",
        `MCP server script ${script} is not in ${lock.file} (run spell lock --update)`,
      );
    if (locked !== now)
      throw new ConfigError(
        "lock_mismatch",
        `MCP server script ${script} differs from ${lock.file}: locked ${locked}, now ${now} (run spell lock --update)`,
      );
  }
}

/**
 * Writes the lock of `target` (a spell file, or a reference: then the lock is `lockDir`'s):
 * every reference it reaches pinned, the ones already pinned kept unless `update`, and its MCP
 * scripts hashed. Returns the lock written.
 */
export async function lockSpell(
  target: string,
  options: RemoteOptions & { update?: boolean; lockDir: string },
): Promise<Lock> {
  const file = isRemote(target) ? join(options.lockDir, LOCK_NAME) : lockPathFor(target);
  const old = options.update ? undefined : readLock(file);
  const lock: Lock = { file, remote: {}, scripts: {} };
  const { lock: _ignored, ...unlocked } = options;
  void _ignored;
  const queue: string[] = [];
  if (isRemote(target)) queue.push(target);
  else {
    const local = spellFiles(target, dirname(target));
    queue.push(...local.remotes.map((r) => r.ref));
    for (const script of local.scripts)
      lock.scripts[script] = sha256(readFileSync(under(dirname(file), script)));
  }
  while (queue.length > 0) {
    const text = queue.shift()!;
    if (Object.hasOwn(lock.remote, text)) continue;
    const kept = old && Object.hasOwn(old.remote, text) ? old.remote[text] : undefined;
    const got = await fetchSpell(text, {
      ...unlocked,
      ...(kept ? { lock: { file, remote: { [text]: kept }, scripts: {} } } : {}),
    });
    lock.remote[text] = got.digest;
    queue.push(...spellFiles(got.main, got.dir).remotes.map((r) => r.ref));
  }
  writeLock(lock);
  return lock;
}
