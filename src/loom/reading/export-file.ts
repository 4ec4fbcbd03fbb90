import { redactingReplacer } from "../../core/redact-stream.js";
import { jsonlLoomStore, type LoomReadStore } from "../stores/index.js";

export interface FileExportOptions {
  /** Applied to every string value before it is encoded (PROD-8); absent: no redaction. */
  redact?: ((text: string) => string) | undefined;
  /** Told about every torn piece skipped (a killed writer's cut-off record). */
  onTorn?: (message: string) => void;
}

/**
 * A loom exported as JSONL, a page of records at a time (LoomReadStore.recordPages), in bounded
 * memory whatever its size: each record is redacted, encoded and handed to `write` — and, when
 * `write` says to wait (a slow reader of stdout), the next is taken only once it has resolved;
 * it resolving false (the reader went away) ends the export. Records keep their append order:
 * identities (each once), turns (a shared observation put back whole), rewards as their own
 * records; a file's header and `torn` markers are left out.
 */
export async function exportLoom(
  store: LoomReadStore,
  write: (text: string) => boolean | Promise<boolean>,
  options: FileExportOptions = {},
): Promise<void> {
  const { redact } = options;
  // Every string value is redacted before it is encoded, so escaping cannot hide a secret.
  const replacer = redact ? redactingReplacer(redact) : undefined;
  for await (const page of store.recordPages(0, { onTorn: options.onTorn })) {
    for (const record of page.records) {
      const open = write(`${JSON.stringify(record, replacer)}\n`);
      if (!(typeof open === "boolean" ? open : await open)) return;
    }
  }
}

/** A loom file exported as JSONL (see exportLoom). */
export async function exportLoomFile(
  path: string,
  write: (text: string) => boolean | Promise<boolean>,
  options: FileExportOptions = {},
): Promise<void> {
  const store = jsonlLoomStore(path);
  try {
    await exportLoom(store, write, options);
  } finally {
    await store.close();
  }
}
