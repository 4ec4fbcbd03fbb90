/**
 * Gates that exist for tests: stand-ins for a slow service, a failing one, a stateful one. The
 * conformance runner offers them to tests.yaml and to a spell's own `tests:`; a spell's circle
 * outside its tests cannot name them.
 */
import { behaviorGate, gateRegistry, type GateRegistry } from "../circle/gates/index.js";

function numberDep(deps: Readonly<Record<string, unknown>>, key: string, fallback: number): number {
  const v = deps[key];
  return typeof v === "number" ? v : fallback;
}

export const testGates: GateRegistry = {
  slow_gate: {
    dependencies: ["delay_ms", "result"],
    create: (d) =>
      behaviorGate({
        name: "slow_gate",
        description: "Waits, then returns its result (a stand-in for a slow service).",
        behavior: { delay_ms: numberDep(d, "delay_ms", 100), result: d["result"] ?? "slow result" },
      }),
  },
  failing_gate: {
    dependencies: ["error"],
    create: (d) =>
      behaviorGate({
        name: "failing_gate",
        description: "Always fails (for error-as-observation checks).",
        behavior: { error: typeof d["error"] === "string" ? d["error"] : "gate failed" },
      }),
  },
  counter: {
    dependencies: [],
    create: () =>
      behaviorGate({
        name: "counter",
        description: "Returns how many times it has been called.",
        behavior: { stateful: true },
      }),
  },
};

/** What a case's circle may name: every built-in gate and the test gates. */
export const caseGates: GateRegistry = { ...gateRegistry, ...testGates };
