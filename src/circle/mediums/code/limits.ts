import { numberWard, registerWard, type WardValues } from "../../../core/wards.js";

// WARD-2 / MEDIUM-4: the code medium's own wards. Numbers, so they compose by min (WARD-1):
// a child's sandbox can only be tighter than its parent's.
registerWard("max_eval_ms", {
  type: "number",
  medium: "code",
  description: "compute time of one code run before the sandbox interrupts it (default 10000)",
});
registerWard("max_memory_mb", {
  type: "number",
  medium: "code",
  description:
    "heap of one entity's sandbox in MiB; allocation beyond it is an error in the code (default 64)",
});
registerWard("max_stack_kb", {
  type: "number",
  medium: "code",
  description: "call stack of one entity's sandbox in KiB (default and maximum 256)",
});

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
