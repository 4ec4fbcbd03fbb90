/**
 * A Node built-in module loaded on its first use instead of at start-up: `spell run` of a
 * conversation spell does not load child_process, net or worker_threads for the bash and code
 * mediums it does not use (ARCHITECTURE.md "Start-up").
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/** `() => the module`, which requires it the first time. */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let mod: T | undefined;
  return () => (mod ??= load(id) as T);
}
