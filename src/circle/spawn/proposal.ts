import { ModelError } from "../../core/errors.js";
import type { Ward } from "../../core/wards.js";
import { isJsonObject } from "../../core/json.js";

/** A child's configuration as the entity proposes it (§5.1); every field but intent optional. */
export interface Proposal {
  intent: string;
  /** Data for the child: the variable `context` in a code child, text after the intent otherwise. */
  context?: unknown;
  gates?: string[];
  wards?: Ward[];
  llm?: string;
  /** The child's identity in the spell's words: { system_prompt, temperature, ... }. */
  identity?: Record<string, unknown>;
  medium?: string;
}

const KEYS = new Set(["intent", "context", "gates", "wards", "llm", "identity", "medium"]);

const bad = (message: string): ModelError =>
  new ModelError("bad_proposal", `call_entity: ${message}`);

/** Validates a proposal from the entity: a string is an intent, an object the full proposal. */
export function parseProposal(value: unknown): Proposal {
  if (typeof value === "string") value = { intent: value };
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw bad("a proposal is an intent string or an object with an intent");
  const p = value as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!KEYS.has(key))
      throw bad(`unknown field ${JSON.stringify(key)} (fields: ${[...KEYS].join(", ")})`);
  }
  const intent = p["intent"];
  if (typeof intent !== "string" || intent.trim() === "") throw bad("intent is required"); // INTENT-1 for the child
  const out: Proposal = { intent };
  if (p["context"] !== undefined && p["context"] !== null) out.context = p["context"];
  if (p["gates"] !== undefined) {
    if (!Array.isArray(p["gates"]) || !p["gates"].every((g) => typeof g === "string"))
      throw bad("gates is a list of gate names");
    out.gates = p["gates"];
  }
  if (p["wards"] !== undefined) out.wards = parseWards(p["wards"]);
  for (const key of ["llm", "medium"] as const) {
    if (p[key] === undefined) continue;
    if (typeof p[key] !== "string") throw bad(`${key} is a name`);
    out[key] = p[key];
  }
  if (p["identity"] !== undefined) {
    const identity = p["identity"];
    if (typeof identity === "string") out.identity = { system_prompt: identity };
    else if (isJsonObject(identity)) out.identity = identity;
    else throw bad("identity is an object like { system_prompt, temperature }");
  }
  return out;
}

/** Wards as a list of one-key maps (`[{ max_turns: 3 }]`) or one map (`{ max_turns: 3 }`); composeWards checks each. */
function parseWards(value: unknown): Ward[] {
  const list = Array.isArray(value) ? value : [value];
  const wards: Ward[] = [];
  for (const item of list) {
    if (item === null || typeof item !== "object" || Array.isArray(item))
      throw bad("wards is a list like [{ max_turns: 3 }]");
    for (const [name, v] of Object.entries(item as Record<string, unknown>)) {
      const names = Array.isArray(v) && v.every((n) => typeof n === "string");
      if (typeof v !== "number" && typeof v !== "boolean" && !names)
        throw bad(`ward ${name} must be a number, a boolean or a list of names`);
      wards.push({ [name]: v });
    }
  }
  return wards;
}
