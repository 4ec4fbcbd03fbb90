import { redactingReplacer } from "../../core/redact-stream.js";
import { Redactor } from "../../core/redact.js";
import type { Loom } from "../core/index.js";
import type { LoomRecord } from "../records/index.js";

export interface ExportOptions {
  /** "default" redacts secrets (PROD-8); "none" is the owner's explicit opt-out. */
  redaction?: "default" | "none";
  /** Strings to redact besides the common secret shapes. */
  secrets?: readonly string[];
  /** The run's redactor (API keys, `${env:…}` values); default: the common shapes and `secrets`. */
  redact?: (text: string) => string;
}

/** The loom as JSONL text: identities and turns in the order they were appended, then the folds. */
export function exportJsonl(loom: Loom, options: ExportOptions = {}): string {
  const redact =
    options.redaction === "none" ? undefined : (options.redact ?? redactorOf(options.secrets));
  // Every string value is redacted before it is encoded, so escaping cannot hide a secret.
  const replacer = redact ? redactingReplacer(redact) : undefined;
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const turn of loom.turns()) {
    const identity = loom.identity(turn.cantrip_id);
    if (identity && !seen.has(identity.cantrip_id)) {
      seen.add(identity.cantrip_id);
      lines.push(JSON.stringify({ type: "identity", ...identity } satisfies LoomRecord, replacer));
    }
    lines.push(JSON.stringify({ type: "turn", ...turn } satisfies LoomRecord, replacer));
  }
  for (const fold of loom.folds())
    lines.push(JSON.stringify({ type: "fold", ...fold } satisfies LoomRecord, replacer));
  return lines.join("\n") + (lines.length ? "\n" : "");
}

function redactorOf(secrets: readonly string[] | undefined): (text: string) => string {
  const redactor = new Redactor();
  for (const s of secrets ?? []) redactor.add(s);
  return (text) => redactor.redact(text);
}
