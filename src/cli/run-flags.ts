import type { OtelFlags } from "./otel/tracing.js";

/** The flags of `spell run`, shared by every kind's runner. */
export interface RunFlags extends OtelFlags {
  intent?: string | undefined;
  json?: boolean | undefined;
  loom?: string | undefined;
  quiet?: boolean | undefined;
  /** `provider/model`: replaces the spell's LLM for this run. */
  llm?: string | undefined;
}
