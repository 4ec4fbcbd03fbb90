/**
 * Looms moved between a JSONL file and PostgreSQL (`spell loom import`, `spell loom export` of a
 * postgres URL), and a PostgreSQL loom read record by record as a file is (tree, stats, view).
 */
import { redactingReplacer } from "../core/redact-stream.js";
import { loomItems, tornMessage } from "./jsonl-read.js";
import type { StoredRecord } from "./loom-store.js";
import { postgresLoomStore } from "./storage-postgres.js";

/**
 * Every record of the PostgreSQL loom at `url`, in append order, a page at a time (see
 * PostgresLoomStore.recordPages): the next page is read only when the caller asks for it.
 */
export async function* postgresRecords(url: string): AsyncGenerator<StoredRecord, void, undefined> {
  const store = postgresLoomStore(url);
  try {
    for await (const page of store.recordPages()) yield* page;
  } finally {
    await store.close();
  }
}

/**
 * The loom as JSONL, as `exportLoomFile` writes a file's: every string value redacted before it
 * is encoded (when `redact` is given), one record a line, in append order — read a page at a
 * time, the next page only once stdout has taken the last record (bounded memory).
 */
export async function exportPostgresLoom(
  url: string,
  write: (text: string) => boolean | Promise<boolean>,
  options: { redact?: ((text: string) => string) | undefined } = {},
): Promise<void> {
  const { redact } = options;
  const replacer = redact ? redactingReplacer(redact) : undefined;
  for await (const record of postgresRecords(url)) {
    const open = write(`${JSON.stringify(record, replacer)}\n`);
    if (!(typeof open === "boolean" ? open : await open)) return;
  }
}

/** Records sent in one transaction by an import (fewer when they pass IMPORT_BATCH_BYTES). */
export const IMPORT_BATCH = 500;
const IMPORT_BATCH_BYTES = 8 << 20;

/**
 * Appends every record of a loom file to the PostgreSQL loom at `url`, in file order, in
 * batches of IMPORT_BATCH records, one transaction each: an import killed mid-way leaves whole
 * batches. Appends are idempotent, so importing a file twice (or after an interrupted import)
 * adds only what is missing. A turn at a place another turn holds is refused (`loom_fenced`)
 * and ends the import: its batch is then appended record by record, so every record before it
 * is stored and none after.
 */
export async function importLoomFile(
  path: string,
  url: string,
  onTorn: (message: string) => void = () => {},
): Promise<{ records: number; added: number; location: string }> {
  const store = postgresLoomStore(url);
  let records = 0;
  let added = 0;
  let batch: StoredRecord[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const stored = await store.appendMany(batch);
    if (stored !== "fenced") added += stored;
    else for (const record of batch) if (await store.append(record)) added++;
    batch = [];
    bytes = 0;
  };
  try {
    for (const item of loomItems(path)) {
      if (item.torn) {
        onTorn(tornMessage(path, item.torn));
        continue;
      }
      const { record } = item;
      if (record.type === "loom" || record.type === "torn") continue;
      records++;
      batch.push(record);
      bytes += textLength(record);
      if (batch.length >= IMPORT_BATCH || bytes >= IMPORT_BATCH_BYTES) await flush();
    }
    await flush();
  } finally {
    await store.close();
  }
  return { records, added, location: store.location };
}

/** About how much text a record holds (its utterance, observation and gate calls). */
function textLength(record: StoredRecord): number {
  if (record.type !== "turn") return 0;
  let n = record.utterance.length + record.observation.length;
  for (const call of record.gate_calls ?? [])
    n += String(call.arguments ?? "").length + String(call.result ?? "").length;
  return n;
}
