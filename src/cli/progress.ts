import type { CantripEvent } from "../core/events.js";

/**
 * The progress lines of `spell run` on stderr. Children's events reach the same display
 * (their parent relays them), so every line of an entity other than the one cast is indented
 * and tagged with its entity id: whose turn it was stays readable when children interleave.
 */
export function progressLines(): {
  line: (e: CantripEvent) => string;
  tag: (entityId: string) => string;
} {
  let root: string | undefined;
  const tag = (entityId: string): string => {
    root ??= entityId;
    return entityId === root ? "" : `  ↳ [${entityId}] `;
  };
  // The first event of a cast is its own entity's (step_start): that entity is the root.
  const line = (e: CantripEvent): string => {
    const who = tag(e.entityId);
    return e.type === "step_complete" ? who + turnLine(e) : "";
  };
  return { line, tag };
}

/** Characters of a turn's error its progress line shows. */
const ERROR_SHOWN = 100;

function turnLine(e: Extract<CantripEvent, { type: "step_complete" }>): string {
  // A turn that erred says so (its error's first line, already redacted), after any gates.
  const erred = e.isError ? `error: ${clip(e.error ?? "")}` : "";
  const called = e.gates.join(", ");
  const gates = called && erred ? `${called} · ${erred}` : called || erred || "no gates";
  const tokens = e.usage.promptTokens + e.usage.completionTokens;
  const end = e.outcome === "continue" ? "" : ` → ${e.outcome}`;
  const cached = e.usage.cachedTokens ? `, ${e.usage.cachedTokens} cached` : "";
  return `turn ${e.sequence} · ${gates} · ${tokens} tokens (${e.usage.promptTokens} in, ${e.usage.completionTokens} out${cached}) · ${Math.round(e.durationMs)} ms${end}\n`;
}

function clip(text: string): string {
  return text.length > ERROR_SHOWN ? `${text.slice(0, ERROR_SHOWN - 1)}…` : text;
}
