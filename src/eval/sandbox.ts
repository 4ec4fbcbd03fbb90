/**
 * The QuickJS sandbox for `javascript` assertions, through the sandbox room's public face
 * (src/sandbox/index.ts).
 * An expression is evaluated over the cast's data, injected as variables (`result`, `turns`,
 * `cast`), inside the sandbox with its limits: never on the host.
 */
import { openSandbox, sandboxLimits } from "../sandbox/index.js";

export interface ExpressionOutcome {
  value?: unknown;
  error?: string;
}

/** Evaluates `expression` with `vars` as its variables; its value crosses back as JSON. */
export async function evaluateInSandbox(
  expression: string,
  vars: Record<string, unknown>,
  maxMs = 2000,
): Promise<ExpressionOutcome> {
  const sandbox = await openSandbox({
    gates: ["__out"],
    aliases: {},
    warded: {},
    state: vars,
    limits: sandboxLimits({ max_eval_ms: maxMs, max_memory_mb: 32 }),
  });
  try {
    let value: unknown;
    const out = await sandbox.evaluate(`__out((${expression}\n))`, {
      signal: new AbortController().signal,
      callGate: (_name, args) => {
        value = args[0];
        return { ok: true, value: undefined };
      },
    });
    if (out.stopped) return { error: `stopped: ${out.stopped}` };
    if (out.error) return { error: `${out.error.name}: ${out.error.message}` };
    return { value };
  } finally {
    sandbox.dispose();
  }
}
