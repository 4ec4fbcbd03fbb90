import { numberWard, type WardValues } from "../core/wards.js";

export const DEFAULT_EVAL_MS = 10_000;
export const DEFAULT_MEMORY_MB = 64;
/**
 * The sandbox runs on the host's native stack: QuickJS frames beyond ~384 KiB overflow Node's
 * own stack, so 256 KiB is both the default and the ceiling.
 */
export const MAX_STACK_KB = 256;

export interface SandboxLimits {
  evalMs: number;
  memoryBytes: number;
  stackBytes: number;
}

/** The resolved limits of a circle's sandbox (wards enforced by the runtime — CIRCLE-6). */
export function sandboxLimits(wards: WardValues): SandboxLimits {
  const evalMs = numberWard(wards, "max_eval_ms") ?? DEFAULT_EVAL_MS;
  const memoryMb = numberWard(wards, "max_memory_mb") ?? DEFAULT_MEMORY_MB;
  const stackKb = Math.min(numberWard(wards, "max_stack_kb") ?? MAX_STACK_KB, MAX_STACK_KB);
  return {
    evalMs,
    // QuickJS needs a little heap for itself: below 1 MiB a context cannot even start.
    memoryBytes: Math.max(1, memoryMb) * 1024 * 1024,
    stackBytes: Math.max(8, stackKb) * 1024,
  };
}
