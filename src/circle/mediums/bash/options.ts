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
