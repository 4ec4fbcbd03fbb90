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
  redactor: Pick<Redactor, "redact" | "longest">,
  line: (event: CantripEvent) => string,
): (event: CantripEvent) => void {
  let open = false; // text written on the current line
  const out = (text: string) => {
    if (!text) return;
    write(text);
    open = !text.endsWith("\n");
  };
  return redactingListener((event) => {
    if (event.type === "text") out(event.text);
    else if (event.type === "message_complete") {
      if (open) out("\n");
    } else if (event.type !== "thinking") out(line(event));
  }, redactor);
}
