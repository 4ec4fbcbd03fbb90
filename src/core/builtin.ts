/**
 * A Node built-in module loaded on its first use instead of at start-up: `spell run` of a
 * conversation spell does not load child_process, net or worker_threads for the bash and code
 * mediums it does not use (ARCHITECTURE.md "Start-up").
 */
import { createRequire } from "node:module";

let load: NodeJS.Require | undefined;

/** `() => the module`, which requires it the first time. */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let mod: T | undefined;
  // The require function too is made on first use (createRequire parses import.meta.url).
  return () => (mod ??= (load ??= createRequire(import.meta.url))(id) as T);
}
