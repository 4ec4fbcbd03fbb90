import type { Loom } from "./loom.js";
import type { LoomRecord } from "./turn.js";

export interface ExportOptions {
  /** "default" redacts secrets (PROD-8); "none" is the owner's explicit opt-out. */
  redaction?: "default" | "none";
  /** Strings to redact besides the common secret shapes. */
  secrets?: readonly string[];
  redact?: (text: string) => string;
}

/** The loom as JSONL text: identities, turns and rewards, in the order they were appended. */
export function exportJsonl(loom: Loom, options: ExportOptions = {}): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const turn of loom.turns()) {
    const identity = loom.identity(turn.cantrip_id);
    if (identity && !seen.has(identity.cantrip_id)) {
      seen.add(identity.cantrip_id);
      lines.push(JSON.stringify({ type: "identity", ...identity } satisfies LoomRecord));
    }
    lines.push(JSON.stringify({ type: "turn", ...turn } satisfies LoomRecord));
  }
  const text = lines.join("\n") + (lines.length ? "\n" : "");
  if (options.redaction === "none" || !options.redact) return text;
  return options.redact(text);
}
