/**
 * A loom's records appended to another store (`spell loom import FILE --to postgres://…`), in
 * batches when the target takes them (PostgreSQL: one transaction a batch).
 */
import { jsonlLoomStore, type LoomReadStore, type LoomStore } from "../stores/index.js";
import { recordBytes, type StoredRecord } from "../stores/index.js";
import { postgresLoomStore } from "./storage-postgres.js";

/** Records sent in one transaction by an import (fewer when they pass IMPORT_BATCH_BYTES). */
export const IMPORT_BATCH = 500;
const IMPORT_BATCH_BYTES = 8 << 20;

/** A store that appends many records at once, all or none ("fenced": none, a turn refused). */
interface BatchStore extends LoomStore {
  appendMany(records: readonly StoredRecord[]): Promise<number | "fenced">;
}

const batches = (store: LoomStore): store is BatchStore =>
  typeof (store as Partial<BatchStore>).appendMany === "function";

/**
 * Appends every record of `from` to `to`, in append order, in batches of IMPORT_BATCH records,
 * one transaction each: an import killed mid-way leaves whole batches. Appends are idempotent,
 * so importing twice (or after an interrupted import) adds only what is missing. A turn at a
 * place another turn holds is refused (`loom_fenced`) and ends the import: its batch is then
 * appended record by record, so every record before it is stored and none after.
 */
export async function importLoom(
  from: LoomReadStore,
  to: LoomStore,
  onTorn: (message: string) => void = () => {},
): Promise<{ records: number; added: number; location: string }> {
  let records = 0;
  let added = 0;
  let batch: StoredRecord[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const stored = batches(to) ? await to.appendMany(batch) : "fenced";
    if (stored !== "fenced") added += stored;
    else for (const record of batch) if (await to.append(record)) added++;
    batch = [];
    bytes = 0;
  };
  for await (const page of from.recordPages(0, { onTorn })) {
    for (const record of page.records) {
      records++;
      batch.push(record);
      bytes += recordBytes(record);
      if (batch.length >= IMPORT_BATCH || bytes >= IMPORT_BATCH_BYTES) await flush();
    }
  }
  await flush();
  return { records, added, location: to.location };
}

/** Every record of a loom file appended to the PostgreSQL loom at `url` (see importLoom). */
export async function importLoomFile(
  path: string,
  url: string,
  onTorn: (message: string) => void = () => {},
): Promise<{ records: number; added: number; location: string }> {
  const from = jsonlLoomStore(path);
  const to = postgresLoomStore(url);
  try {
    return await importLoom(from, to, onTorn);
  } finally {
    await from.close();
    await to.close();
  }
}
