import type { OtelFlags } from "./otel/tracing.js";

/** The flags of `spell run`, shared by every kind's runner. */
export interface RunFlags extends OtelFlags {
  intent?: string | undefined;
  json?: boolean | undefined;
  loom?: string | undefined;
  quiet?: boolean | undefined;
  /** `provider/model`: replaces the spell's LLM for this run. */
  llm?: string | undefined;
  /** Approve every approval question of this run (issue 25). */
  yes?: boolean | undefined;
  /** `gate=NAME[,gate=GLOB…]`: the gates approved for this run. */
  approve?: string | undefined;
  /** `key=value` inputs (issue 26), each read as the spell's `inputs:` types it. */
  input?: string[] | undefined;
  /** A JSON file of inputs; `--input` values go on top. */
  inputs?: string | undefined;
  /** An entity whose interrupted cast to continue (`last`: the spell's last in the loom). */
  resume?: string | undefined;
  /** K independent casts through the eval scheduler (run-repeat.ts). */
  repeat?: number | undefined;
  /** With --repeat: casts at once. */
  concurrency?: number | undefined;
  /** With --repeat: the report folder. */
  out?: string | undefined;
  /** With --repeat: the Redis whose queue the casts go on (workers run them; eval's --queue). */
  queue?: string | undefined;
  /** Plain HTTP to a registry not on loopback, for an `oci://` spell. */
  "plain-http"?: boolean | undefined;
}
