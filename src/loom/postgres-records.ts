/**
 * Looms moved between a JSONL file and PostgreSQL (`spell loom import`, `spell loom export` of a
 * postgres URL), and a PostgreSQL loom read record by record as a file is (tree, stats, view).
 */
import { loomItems, tornMessage } from "./jsonl-read.js";
import type { StoredRecord } from "./loom-store.js";
import { postgresLoomStore } from "./storage-postgres.js";

/** Every record of the PostgreSQL loom at `url`, in append order. */
export async function readPostgresRecords(url: string): Promise<StoredRecord[]> {
  const store = postgresLoomStore(url);
  try {
    return await store.records();
  } finally {
    await store.close();
  }
}

/**
 * The loom as JSONL, as `exportLoomFile` writes a file's: every string value redacted before it
 * is encoded (when `redact` is given), one record a line, in append order.
 */
export async function exportPostgresLoom(
  url: string,
  write: (text: string) => boolean | Promise<boolean>,
  options: { redact?: ((text: string) => string) | undefined } = {},
): Promise<void> {
  const { redact } = options;
  const replacer = redact
    ? (_key: string, value: unknown) => (typeof value === "string" ? redact(value) : value)
    : undefined;
  for (const record of await readPostgresRecords(url)) {
    const open = write(`${JSON.stringify(record, replacer)}\n`);
    if (!(typeof open === "boolean" ? open : await open)) return;
  }
}

/**
 * Appends every record of a loom file to the PostgreSQL loom at `url`, in file order. Appends
 * are idempotent, so importing a file twice (or after an interrupted import) adds only what is
 * missing; a turn at a place another turn holds is refused (`loom_fenced`) and ends the import.
 */
export async function importLoomFile(
  path: string,
  url: string,
  onTorn: (message: string) => void = () => {},
): Promise<{ records: number; added: number; location: string }> {
  const store = postgresLoomStore(url);
  let records = 0;
  let added = 0;
  try {
    for (const item of loomItems(path)) {
      if (item.torn) {
        onTorn(tornMessage(path, item.torn));
        continue;
      }
      const { record } = item;
      if (record.type === "loom" || record.type === "torn") continue;
      records++;
      if (await store.append(record)) added++;
    }
  } finally {
    await store.close();
  }
  return { records, added, location: store.location };
}
