import type { CantripEvent } from "../core/events.js";
import { redactingListener } from "../core/redact-stream.js";
import type { Redactor } from "../core/redact.js";

export { StreamRedactor } from "../core/redact-stream.js";

/**
 * The live display of `spell run` on stderr: the entity's text as it arrives, then each turn's
 * progress line. Everything passes through the redacting listener first (PROD-8), so a
 * secret split across deltas is caught too. Thinking is recorded, not shown.
 */
export function liveDisplay(
  write: (text: string) => void,
  redactor: Pick<Redactor, "redact" | "longest" | "longestEscaped">,
  lines: { line: (event: CantripEvent) => string; tag?: (entityId: string) => string },
): (event: CantripEvent) => void {
  let open: string | undefined; // the entity whose text is on the current line
  const out = (text: string, entityId?: string) => {
    if (!text) return;
    write(text);
    open = text.endsWith("\n") ? undefined : entityId;
  };
  return redactingListener((event) => {
    if (event.type === "text") {
      // A child's text starts its own line, tagged like its progress lines.
      if (open !== undefined && open !== event.entityId) out("\n");
      const head = open === undefined ? (lines.tag?.(event.entityId) ?? "") : "";
      out(head + event.text, event.entityId);
    } else if (event.type === "message_complete") {
      if (open !== undefined) out("\n");
    } else if (event.type !== "thinking") {
      const line = lines.line(event);
      if (line && open !== undefined) out("\n");
      out(line);
    }
  }, redactor);
}
