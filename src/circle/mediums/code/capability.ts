import type { ToolDefinition } from "../../../core/contract.js";
import type { GateHost } from "../../medium.js";
import type { Gate } from "../../gate.js";
import { DONE } from "../../gate-names.js";
import { sandboxLimits } from "../../../sandbox/index.js";

/** The single tool of a code circle (§4.6): the LLM writes code, the gates live inside it. */
export const JS_TOOL: ToolDefinition = {
  name: "js",
  description:
    "Run JavaScript in your sandbox. Variables persist between runs. The circle's gates are functions here; finish with done(answer).",
  parameters: {
    type: "object",
    properties: {
      code: { type: "string", description: "JavaScript source to run (a script, not a module)." },
    },
    required: ["code"],
  },
};

function signature(gate: Gate): string {
  if (gate.name === DONE) return "done(answer)";
  const { properties = {}, required = [] } = gate.parameters;
  const params = Object.entries(properties).map(([name, schema]) => {
    const type = typeof schema["type"] === "string" ? `: ${schema["type"]}` : "";
    return `${name}${required.includes(name) ? "" : "?"}${type}`;
  });
  return `${gate.name}(${params.join(", ")})`;
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return `string, ${value.length} chars`;
  if (Array.isArray(value)) return `array, ${value.length} items`;
  if (value !== null && typeof value === "object")
    return `object, ${Object.keys(value).length} keys`;
  return value === null ? "null" : typeof value;
}

/**
 * The circle's capability presentation (CIRCLE-11): the medium, the gates as functions with
 * their contracts, the variables already in the sandbox, and the limits. Fixed for a cast.
 */
export function capabilityText(circle: GateHost, state: Readonly<Record<string, unknown>>): string {
  const limits = sandboxLimits(circle.wards);
  const gates = [...circle.gates.values()].map((g) => `- ${signature(g)} — ${g.description}`);
  const lines = [
    "You act by writing JavaScript: call the `js` tool with code; it is your only tool. The code runs in a QuickJS sandbox.",
    "- State persists between runs: top-level var, let, const and function declarations stay defined in later runs (re-declaring a let/const is an error: assign instead).",
    "- The functions below are your only way out of the sandbox: there is no require, import, process, fetch, filesystem or timers.",
    '- They are synchronous: write `const text = read("notes.txt")`, without await. Pass arguments in the listed order or as one object of named arguments. A failing call throws an Error you can catch.',
    "- console.log prints; the value of the last expression is shown. Large values are summarized (type, size, a preview): keep data in variables and print only what you need.",
    "- Finish by calling done(answer) (submit_answer(answer) is the same); the answer keeps its type.",
    `- Limits per run: ${limits.evalMs} ms of compute, ${limits.memoryBytes / 1024 / 1024} MiB of memory.`,
    ...(circle.gates.has("loom") || "loom" in state
      ? []
      : [
          "- `loom` is your own history, read-only: loom.turns (each earlier turn's utterance, observation and gate_calls, in order) and loom.folded_summary (the summary of folded turns, or null).",
        ]),
    "",
    "Functions:",
    ...gates,
  ];
  const names = Object.keys(state);
  if (names.length) {
    lines.push(
      "",
      "Variables already defined:",
      ...names.map((n) => `- ${n} (${describeValue(state[n])})`),
    );
  }
  return lines.join("\n");
}
