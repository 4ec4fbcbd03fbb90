/**
 * The QuickJS sandbox engine's public face: the only file of src/sandbox/ imported from outside
 * it (.dependency-cruiser.cjs, rule `sandbox-through-index`). The engine knows nothing of
 * circles, gates or looms: a caller creates a context with the names it will answer, runs code
 * in it, answers the code's host calls, and disposes of it.
 *
 * - create a context: `openSandbox(setup)` (or `Sandbox.open(engine, setup)` with an engine of
 *   `loadCodeEngine()`); `setup` names the host functions (`gates`, `aliases`, `warded`), the
 *   variables injected (`state`), the `limits` and whether a `loom` global is offered;
 * - run code: `sandbox.evaluate(code, hooks)` → `EvalOutput` (the value or error, and `stopped`
 *   when a limit, a host function's `stop` or the signal ended the run);
 * - call host functions: `hooks.callGate(name, args)` answers each call the code makes, at once
 *   or with a promise (`GateReply`); `hooks.loom(known)` answers reads of the `loom` global;
 * - limits: `sandboxLimits(wards)` (max_eval_ms of compute, max_memory_mb of heap,
 *   max_stack_kb of stack);
 * - dispose: `sandbox.dispose()` (every run asked for before it finishes first, even one still
 *   queued for its lane or waiting for the sandbox to be built); the engine's worker
 *   threads (lanes) are shared by every sandbox of the process.
 *
 * The engine runs no sandbox code on the main thread: each context lives in a lane's worker
 * (LIMITS.md, "The sandbox off the main thread").
 */
import { loadCodeEngine } from "./engine.js";
import { Sandbox, type SandboxSetup } from "./sandbox.js";

export {
  configureCodeEngine,
  loadCodeEngine,
  type CodeEngine,
  type CodeEngineOptions,
} from "./engine.js";
export {
  Sandbox,
  type ErrorView,
  type EvalHooks,
  type EvalOutput,
  type GateReply,
  type SandboxSetup,
  type ValueView,
} from "./sandbox.js";
export { sandboxLimits, type SandboxLimits } from "./limits.js";

/** A new sandbox context in the process's engine (loaded on first use). */
export async function openSandbox(setup: SandboxSetup): Promise<Sandbox> {
  return Sandbox.open(await loadCodeEngine(), setup);
}
