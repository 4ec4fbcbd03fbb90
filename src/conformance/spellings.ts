/**
 * The spellings other implementations' suites use for the same things (CONFORMANCE.md): a test
 * gate's behaviour written directly on the gate object, beside or instead of `behavior:`.
 * Both spellings mean the same; a gate object whose two spellings disagree is a case error.
 */
import { ConfigError } from "../core/errors.js";

const BEHAVIOR_KEYS = ["delay_ms", "result", "error", "throw", "stateful"] as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `{ name, delay_ms, result, … }` → `{ name, behavior: { delay_ms, result, … } }`; other gates as they are. */
export function gateSpelling(gate: unknown, where: string): unknown {
  if (gate === null || typeof gate !== "object" || Array.isArray(gate)) return gate;
  const g = { ...(gate as Record<string, unknown>) };
  if (typeof g["name"] !== "string") return gate;
  if (typeof g["behavior"] === "string") g["behavior"] = behaviorWord(g, where);
  const nested = g["behavior"];
  if (nested !== undefined && (nested === null || typeof nested !== "object"))
    throw new ConfigError("bad_case", `${where}: behavior of gate ${g["name"]} must be a mapping`);
  const behavior = { ...((nested as Record<string, unknown> | undefined) ?? {}) };
  const hadEphemeral = "ephemeral" in behavior;
  if (hadEphemeral) {
    disagree(where, g, "ephemeral", g["ephemeral"], behavior["ephemeral"]);
    g["ephemeral"] = behavior["ephemeral"];
    delete behavior["ephemeral"];
  }
  let direct = false;
  for (const key of BEHAVIOR_KEYS) {
    if (!(key in g)) continue;
    direct = true;
    disagree(where, g, key, g[key], behavior[key]);
    behavior[key] = g[key];
    delete g[key];
  }
  const movedOnly = hadEphemeral && !direct && Object.keys(behavior).length === 0; // only `ephemeral`
  if (direct || (nested !== undefined && !movedOnly)) g["behavior"] = behavior;
  else delete g["behavior"];
  return g;
}

/** What each behaviour word takes beside it, and what it means when nothing is beside it. */
const WORDS: Record<string, { keys: readonly string[]; absent: Record<string, unknown> }> = {
  delay: { keys: ["delay_ms", "result"], absent: {} },
  error: { keys: ["error"], absent: { error: "gate failed" } },
  throw: { keys: ["throw", "error"], absent: { throw: true } }, // the spec's form: its message under `error:`
  stateful: { keys: ["stateful"], absent: { stateful: true } },
};

/**
 * `behavior: delay` with `delay_ms:` and `result:` beside it (another suite's spelling): the word
 * names the behaviour, the keys beside it carry its settings (moved under `behavior` by the
 * caller). A word it does not know, or a setting of another behaviour, is a case error.
 */
function behaviorWord(g: Record<string, unknown>, where: string): Record<string, unknown> {
  const word = String(g["behavior"]);
  const name = String(g["name"]);
  const spec = Object.hasOwn(WORDS, word) ? WORDS[word] : undefined;
  if (!spec)
    throw new ConfigError(
      "bad_case",
      `${where}: behavior ${JSON.stringify(word)} of gate ${name} is not one of ${Object.keys(WORDS).join(", ")}`,
    );
  const other = BEHAVIOR_KEYS.filter((k) => k in g && !spec.keys.includes(k));
  if (other.length > 0)
    throw new ConfigError(
      "bad_case",
      `${where}: behavior ${JSON.stringify(word)} of gate ${name} takes ${spec.keys.join(", ")}; not ${other.join(", ")}`,
    );
  return spec.keys.some((k) => k in g) ? {} : { ...spec.absent };
}

function disagree(
  where: string,
  g: Record<string, unknown>,
  key: string,
  direct: unknown,
  nested: unknown,
): void {
  if (direct !== undefined && nested !== undefined && !same(direct, nested)) {
    throw new ConfigError(
      "bad_case",
      `${where}: gate ${String(g["name"])} says ${key}: ${JSON.stringify(direct)} and behavior.${key}: ${JSON.stringify(nested)}; write it once`,
    );
  }
}

/** `thread:` items as roles: `entity`, or a role object `{ role: entity }`. */
export function threadRole(item: unknown): unknown {
  if (item !== null && typeof item === "object" && !Array.isArray(item)) {
    const keys = Object.keys(item);
    if (keys.length === 1 && keys[0] === "role") return (item as { role: unknown }).role;
    throw new ConfigError(
      "unsupported_expectation",
      `unsupported expectation: thread[] item ${JSON.stringify(item)} (a role, or { role })`,
    );
  }
  return item;
}
