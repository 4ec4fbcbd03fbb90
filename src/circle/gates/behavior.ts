import type * as TimersPromises from "node:timers/promises";
import { lazyBuiltin } from "../../core/builtin.js";
import { ConfigError } from "../../core/errors.js";
import type { Gate, ParameterSchema } from "../gate.js";

// Loaded on the first wait, not with every `spell run` (start-up).
const timers = lazyBuiltin<typeof TimersPromises>("node:timers/promises");
const sleep: typeof TimersPromises.setTimeout = (...args) => timers().setTimeout(...args);

/**
 * Gates whose behaviour is declared rather than coded: for tests, demos and stubs of a real
 * service. One of `delay_ms`, `throw`/`error`, a fixed `result`, or `stateful` (a counter).
 */
export interface GateBehavior {
  delay_ms?: number;
  result?: unknown;
  error?: string;
  throw?: boolean | string;
  stateful?: boolean;
}

export interface DeclaredGate {
  name: string;
  description?: string;
  parameters?: ParameterSchema;
  ephemeral?: boolean;
  behavior: GateBehavior;
}

export function behaviorGate(decl: DeclaredGate): Gate {
  const b = decl.behavior;
  const error = typeof b.throw === "string" ? b.throw : b.error;
  if (b.throw === true && error === undefined) {
    throw new ConfigError(
      "bad_behavior",
      `gate ${decl.name}: behavior.throw needs an error message`,
    );
  }
  let count = 0;
  return {
    name: decl.name,
    description: decl.description ?? `Declared gate ${decl.name}.`,
    parameters: decl.parameters ?? { type: "object", properties: {} },
    ephemeral: decl.ephemeral ?? false,
    async execute(args, ctx) {
      count++;
      if (b.delay_ms) await sleep(b.delay_ms, undefined, { signal: ctx.signal });
      if (error !== undefined) throw new Error(error);
      if (b.stateful) return count;
      return b.result !== undefined ? b.result : args;
    },
  };
}
