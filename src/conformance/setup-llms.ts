/**
 * The LLMs a case's setup declares (every key containing "llm"): scripted replies, or a mock
 * provider whose real adapter speaks to a loopback wire. A key the runner does not know is an
 * error, never ignored.
 */
import { ConfigError } from "../core/errors.js";
import { ScriptedLLM, type ScriptedResponse } from "../llm/providers/scripted.js";
import type { Spell } from "../spell/index.js";
import { MockOpenAI } from "./mock-openai.js";
import { setPrice } from "./child-llms.js";

/** Keys of an LLM entry in setup; anything else is a runner error, never ignored. */
const LLM_KEYS = new Set([
  "price",
  "responses",
  "usage",
  "record_inputs",
  "type",
  "name",
  "provider",
  "raw_response",
  "raw_responses",
  "profile",
  "model",
  "retry_behavior",
  "stateless",
]);
const SETUP_KEYS = new Set([
  "circle",
  "identity",
  "filesystem",
  "folding",
  "retry",
  "inputs",
  "output_schema",
]);

/** The scripted (or mock-provider) LLMs a setup declares: every key containing "llm". */
export function setupLLMs(setup: Record<string, unknown>, base: Spell | undefined) {
  const llms = new Map<string, ScriptedLLM | MockOpenAI>();
  for (const [key, value] of Object.entries(setup)) {
    if (key.includes("llm")) {
      if (value !== null) llms.set(key, scriptedFrom(key, value));
    } else if (!SETUP_KEYS.has(key)) {
      throw new ConfigError("unsupported_setup", `unsupported setup key: ${key}`);
    }
  }
  // A spell's own test without setup.llm runs on the spell's scripted replies, if it has them.
  const own = base?.llm;
  if (!("llm" in setup) && own && typeof own === "object" && own.provider === "scripted") {
    const scripted = scriptedFrom("llm", {
      responses: own.responses ?? [],
      ...(own.usage ? { usage: own.usage } : {}),
    });
    setPrice(scripted, own);
    llms.set("llm", scripted);
  }
  return llms;
}

function scriptedFrom(key: string, value: unknown): ScriptedLLM | MockOpenAI {
  const spec = (value ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(spec)) {
    if (!LLM_KEYS.has(k))
      throw new ConfigError("unsupported_setup", `unsupported setup key: ${key}.${k}`);
  }
  if (spec["provider"] === "mock_openai") return new MockOpenAI(key, spec);
  if (spec["provider"] !== undefined || spec["raw_response"] !== undefined) {
    throw new ConfigError(
      "unsupported_setup",
      `unsupported setup key: ${key}.provider (the suite's providers: mock_openai, or scripted replies)`,
    );
  }
  const responses = spec["responses"] ?? [];
  if (!Array.isArray(responses))
    throw new ConfigError("unsupported_setup", `${key}.responses must be a list of replies`);
  responses.forEach((r, i) => {
    if (r === null || typeof r !== "object" || Array.isArray(r))
      throw new ConfigError(
        "unsupported_setup",
        `${key}.responses[${i}] must be a reply (content, tool_calls, code, error, ...), got ${JSON.stringify(r)}`,
      );
  });
  const llm = new ScriptedLLM({
    responses: responses as ScriptedResponse[],
    ...(spec["usage"] ? { usage: spec["usage"] } : {}),
    recordInputs: true,
    name: typeof spec["name"] === "string" ? spec["name"] : key,
  });
  setPrice(llm, spec);
  return llm;
}
