/**
 * One way from a loom's location to its store (docs/design/LOOM-STORES.md, "Opening a loom"): a
 * path is a JSONL file, a `postgres://` URL a PostgreSQL database, `memory` a loom of this
 * process alone. Nothing else in the code asks what kind a location is: the commands, the
 * viewer, the loader and the queue open a loom here and read it through the store's contract
 * (loom-store.ts). `pg` itself is loaded only when a database is first asked (postgres-connection.ts).
 */
import { ConfigError } from "../../core/errors.js";
import { jsonlLoomStore, memoryLoomStore, type LoomStore } from "../stores/index.js";
import { isPostgresUrl, redactUrl, urlSecrets, urlWithoutSecrets } from "../postgres/index.js";
import { JsonlStore } from "../stores/index.js";
import { postgresLoomStore } from "../postgres/index.js";
import { QueuedRecordStore } from "../stores/index.js";
import { MemoryStore } from "../stores/index.js";

export interface OpenLoomOptions {
  /**
   * How a file's path is written before it is opened (resolved against a folder, shortened for
   * messages); default as given (relative to the working directory).
   */
  resolvePath?: ((path: string) => string) | undefined;
  /** Applied to every string of every record appended (PROD-8 at rest); default none. */
  redact?: ((text: string) => string) | undefined;
}

const MEMORY = "memory";

/** The file a path names, as `resolvePath` writes it (a store names its file so in messages). */
const fileOf = (location: string, options: OpenLoomOptions) =>
  options.resolvePath ? options.resolvePath(location) : location;

/**
 * The store of the loom at `location` (see the module comment). Nothing is read or connected
 * before the first call: a database's errors come from the first read, with its password out.
 */
export function openLoom(location: string, options: OpenLoomOptions = {}): LoomStore {
  const { redact } = options;
  if (location === MEMORY) return memoryLoomStore();
  if (isPostgresUrl(location)) return postgresLoomStore(location, { redact });
  return jsonlLoomStore(fileOf(location, options), { redact });
}

/**
 * Where a `Loom` (the engine's synchronous write path) appends the records of a cast at
 * `location` (none, or `memory`: kept in memory): a file, or a database's store behind a queue
 * the loop awaits once per turn (store-queued.ts). A file that is not a loom this build may
 * append to is refused here (`loom_refused`), before the first query.
 */
export function openRecordStore(
  location: string | undefined,
  options: OpenLoomOptions = {},
): JsonlStore | QueuedRecordStore | MemoryStore {
  const { redact } = options;
  if (!location || location === MEMORY) return new MemoryStore();
  if (isPostgresUrl(location))
    return new QueuedRecordStore(postgresLoomStore(location, { redact }));
  const store = new JsonlStore(fileOf(location, options), { redact });
  if (store.refusal) throw new ConfigError("loom_refused", store.refusal);
  return store;
}

/**
 * The secrets a location carries (a URL's password, its `?…pass…=` options), decoded: what
 * a redactor of the command's output adds. None for a file.
 */
export function loomSecrets(location: string): string[] {
  return isPostgresUrl(location) ? urlSecrets(location) : [];
}

/** A location as messages show it: a URL without its secrets, a path as it is. */
export function shownLoom(location: string): string {
  // Any URL (a database of another kind, given by mistake) is shown without its password too.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? redactUrl(location) : location;
}

/** Whether the location is a loom other processes reach too (a database), not a file or memory. */
export function sharedLoom(location: string): boolean {
  return isPostgresUrl(location);
}

/**
 * A shared loom's location as it may travel to another process (a queued job): without its
 * password and with only the query options `keep` names; any other location as it is.
 */
export function portableLoom(location: string, keep: ReadonlySet<string>): string {
  if (!isPostgresUrl(location)) return location;
  const bare = urlWithoutSecrets(location);
  if (bare === null) return location.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):.*@/i, "$1@");
  const url = new URL(bare);
  for (const key of [...url.searchParams.keys()]) if (!keep.has(key)) url.searchParams.delete(key);
  return url.href;
}

/** Whether two locations name the same shared loom as the same user (options aside). */
export function sameSharedLoom(a: string, b: string): boolean {
  const key = (location: string) => {
    if (!isPostgresUrl(location)) return null;
    try {
      const u = new URL(location);
      const name = (part: string) => decodeURIComponent(part);
      return JSON.stringify([
        name(u.username),
        name(u.hostname).toLowerCase(),
        u.port,
        name(u.pathname),
      ]);
    } catch {
      return null;
    }
  };
  const k = key(a);
  return k !== null && k === key(b);
}
