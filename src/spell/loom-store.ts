import { isAbsolute, resolve } from "node:path";
import { ConfigError } from "../core/errors.js";
import type { Redactor } from "../core/redact.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { JsonlStore } from "../loom/storage-jsonl.js";
import { PostgresLoomStore } from "../loom/storage-postgres.js";
import { QueuedRecordStore } from "../loom/store-queued.js";

/**
 * A spell's loom file, opened for appending. Every record is redacted before it is written
 * (PROD-8 at rest): the document's redactor — its `${env:…}` values and its provider's key —
 * with every provider key set in the environment added, so the file never holds them. A
 * relative `path` is resolved against `base`. A file that is not a loom this build may append
 * to is refused here, before the first query.
 */
export function openLoomStore(
  path: string,
  base: string,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): JsonlStore {
  for (const name of KEY_ENV_VARS) redactor.add(env[name]);
  const store = new JsonlStore(isAbsolute(path) ? path : resolve(base, path), {
    redact: (text) => redactor.redact(text),
  });
  if (store.refusal) throw new ConfigError("loom_refused", store.refusal);
  return store;
}

/**
 * A spell's PostgreSQL loom (`--loom postgres://…`, `loom: { url }`), written through a queue
 * the loop awaits once per turn (store-queued.ts); redacted at rest as a file is. Nothing
 * connects before the first record; `pg` is loaded then.
 */
export function openPostgresStore(
  url: string,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): QueuedRecordStore {
  for (const name of KEY_ENV_VARS) redactor.add(env[name]);
  try {
    redactor.add(decodeURIComponent(new URL(url).password) || undefined);
  } catch {
    // not a URL the store can parse either: its own error will say so (redacted)
  }
  return new QueuedRecordStore(
    new PostgresLoomStore(url, { redact: (text) => redactor.redact(text) }),
  );
}
