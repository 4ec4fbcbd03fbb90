import type { CliIO } from "../../src/cli/io.js";

/**
 * A CliIO whose streams are collected in `out` and `err` (a CLI function's test double), its
 * environment `env`.
 */
export function io(env: Record<string, string> = {}): CliIO & { out: string; err: string } {
  const o = { out: "", err: "", env, cwd: process.cwd() } as CliIO & {
    out: string;
    err: string;
  };
  o.stdout = (t) => void (o.out += t);
  o.stderr = (t) => void (o.err += t);
  return o;
}
