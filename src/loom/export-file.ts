import { readRecords, tornMessage } from "./jsonl-read.js";

export interface FileExportOptions {
  /** Applied to every string value before it is encoded (PROD-8); absent: no redaction. */
  redact?: ((text: string) => string) | undefined;
  /** Told about every torn piece skipped (a killed writer's cut-off record). */
  onTorn?: (message: string) => void;
}

/**
 * A loom file exported as JSONL, one record at a time, in bounded memory whatever the file's
 * size: each record is read, redacted, encoded and handed to `write` before the next is read.
 * Records keep their file order: identities (each once), turns (a shared observation put
 * back whole), rewards as their own records; the header and `torn` markers are left out.
 */
export function exportLoomFile(
  path: string,
  write: (text: string) => void,
  options: FileExportOptions = {},
): void {
  const { redact } = options;
  // Every string value is redacted before it is encoded, so escaping cannot hide a secret.
  const replacer = redact
    ? (_key: string, value: unknown) => (typeof value === "string" ? redact(value) : value)
    : undefined;
  const identities = new Set<string>();
  readRecords(
    path,
    (record) => {
      if (record.type === "loom" || record.type === "torn") return;
      if (record.type === "identity") {
        if (identities.has(record.cantrip_id)) return;
        identities.add(record.cantrip_id);
      }
      write(`${JSON.stringify(record, replacer)}\n`);
    },
    (piece) => options.onTorn?.(tornMessage(path, piece)),
  );
}
