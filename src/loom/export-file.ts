import { redactingReplacer } from "../core/redact-stream.js";
import { loomItems, tornMessage } from "./jsonl-read.js";

export interface FileExportOptions {
  /** Applied to every string value before it is encoded (PROD-8); absent: no redaction. */
  redact?: ((text: string) => string) | undefined;
  /** Told about every torn piece skipped (a killed writer's cut-off record). */
  onTorn?: (message: string) => void;
}

/**
 * A loom file exported as JSONL, one record at a time, in bounded memory whatever the file's
 * size: each record is read, redacted, encoded and handed to `write` — and, when `write` says
 * to wait (a slow reader of stdout), the next is read only once it has resolved; it resolving
 * false (the reader went away) ends the export. Records keep their file order: identities
 * (each once), turns (a shared observation put back whole), rewards as their own records; the
 * header and `torn` markers are left out.
 */
export async function exportLoomFile(
  path: string,
  write: (text: string) => boolean | Promise<boolean>,
  options: FileExportOptions = {},
): Promise<void> {
  const { redact } = options;
  // Every string value is redacted before it is encoded, so escaping cannot hide a secret.
  const replacer = redact ? redactingReplacer(redact) : undefined;
  const identities = new Set<string>();
  for (const item of loomItems(path)) {
    if (item.torn) {
      options.onTorn?.(tornMessage(path, item.torn));
      continue;
    }
    const { record } = item;
    if (record.type === "loom" || record.type === "torn") continue;
    if (record.type === "identity") {
      if (identities.has(record.cantrip_id)) continue;
      identities.add(record.cantrip_id);
    }
    const open = write(`${JSON.stringify(record, replacer)}\n`);
    if (!(typeof open === "boolean" ? open : await open)) return;
  }
}
