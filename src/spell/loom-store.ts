import { isAbsolute, resolve } from "node:path";
import type { Redactor } from "../core/redact.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { loomSecrets, openRecordStore } from "../loom/open/index.js";
import type { RecordStore } from "../loom/stores/index.js";

/**
 * A spell's loom (`--loom`, `loom: { path | url }`), opened for appending (open-loom.ts): a file,
 * a database (written through a queue the loop awaits once per turn; nothing connects before the
 * first record, `pg` is loaded then), or memory. Every record is redacted before it is stored
 * (PROD-8 at rest): the document's redactor — its `${env:…}` values and its provider's key — with
 * every provider key set in the environment and the location's own secrets (a URL's password)
 * added, so the loom never holds them. A relative path is resolved against `base`. A file that is
 * not a loom this build may append to is refused here, before the first query.
 */
export function openLoomStore(
  location: string,
  base: string,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): RecordStore {
  for (const name of KEY_ENV_VARS) redactor.add(env[name]);
  for (const secret of loomSecrets(location)) redactor.add(secret);
  return openRecordStore(location, {
    resolvePath: (path) => (isAbsolute(path) ? path : resolve(base, path)),
    redact: (text) => redactor.redact(text),
  });
}
