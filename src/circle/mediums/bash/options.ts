import { numberWard, type WardValues } from "../../../core/wards.js";
import type { GateLimits } from "./gate-server.js";
import type { SandboxMode } from "./sandbox.js";

/** A bash circle's workspace and isolation, fixed at load. */
export interface BashOptions {
  /** Absolute host folder the commands start in; the only one they see. */
  root: string;
  /** Commands may change the workspace (default false: bound read-only). */
  writable: boolean;
  sandbox: SandboxMode;
}

/** Processes one command may run at once (its fork bombs end here). */
export const MAX_PROCESSES = 128;
export const DEFAULT_MAX_COMMAND_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_KB = 64;
/**
 * What one command may hold in memory, in MiB (max_memory_mb): its processes, /tmp and /dev/shm.
 * Real programs run here (compilers, git), so more than the code medium's 64; node, the gate
 * client where there is no perl, needs about 1 GiB of address space under `ulimit -v`.
 */
export const DEFAULT_MAX_MEMORY_MB = 1024;
/** Gate calls of one command the host serves at once (max_gate_connections). */
export const DEFAULT_MAX_GATE_CONNECTIONS = 8;
/** One gate call's request to the host, in KiB (max_gate_request_kb). */
export const DEFAULT_MAX_GATE_REQUEST_KB = 1024;

/** What a command may ask of the host's gate socket at once (issue 20). */
export function gateLimits(wards: WardValues): GateLimits {
  return {
    maxConnections: numberWard(wards, "max_gate_connections") ?? DEFAULT_MAX_GATE_CONNECTIONS,
    maxRequestBytes:
      (numberWard(wards, "max_gate_request_kb") ?? DEFAULT_MAX_GATE_REQUEST_KB) * 1024,
  };
}
