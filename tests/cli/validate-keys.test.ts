// `spell validate` warns, and still passes, when `spell run` would fail for want of a provider's
// API key: no `api_key:` in the llm block and none of the provider's variables set.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { validateCommand } from "../../src/cli/validate.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "validate-keys-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const CIRCLE = "circle:\n  gates: [done]\n  wards: [{ max_turns: 3 }]\n";

describe("spell validate and provider keys", () => {
  it("warns at the llm when the provider's key variable is not set, and exits 0", async () => {
    const spell = write(
      "a.yaml",
      `name: a\nidentity: {}\nllm: anthropic/claude-sonnet-4-5\n${CIRCLE}`,
    );
    const o = io({});
    expect(await validateCommand([spell], o)).toBe(EXIT.ok);
    expect(o.out).toMatch(/a\.yaml: ok/);
    expect(o.err).toMatch(
      /a\.yaml:3:6: warning: ANTHROPIC_API_KEY is not set: spell run would fail, as the anthropic provider needs an API key/,
    );
  });

  it("says nothing once the variable is set", async () => {
    const spell = write("b.yaml", `identity: {}\nllm: anthropic/claude-sonnet-4-5\n${CIRCLE}`);
    const o = io({ ANTHROPIC_API_KEY: "sk-test" });
    expect(await validateCommand([spell], o)).toBe(EXIT.ok);
    expect(o.err).toBe("");
  });

  it("accepts either of a provider's variables (google: GEMINI_API_KEY or GOOGLE_API_KEY)", async () => {
    const spell = write("c.yaml", `identity: {}\nllm: google/gemini-2.5-flash\n${CIRCLE}`);
    const none = io({});
    expect(await validateCommand([spell], none)).toBe(EXIT.ok);
    expect(none.err).toMatch(/GEMINI_API_KEY or GOOGLE_API_KEY is not set/);
    const one = io({ GOOGLE_API_KEY: "k" });
    expect(await validateCommand([spell], one)).toBe(EXIT.ok);
    expect(one.err).toBe("");
  });

  it("says nothing when the llm block names its own api_key", async () => {
    const spell = write(
      "d.yaml",
      `identity: {}\nllm:\n  provider: openai\n  model: gpt-4.1\n  api_key: \${env:MY_KEY}\n${CIRCLE}`,
    );
    const o = io({ MY_KEY: "k" });
    expect(await validateCommand([spell], o)).toBe(EXIT.ok);
    expect(o.err).toBe("");
  });

  it("says nothing for providers that need no key (scripted, local)", async () => {
    const spell = write(
      "e.yaml",
      `identity: {}\nllm: local/llama3\nfolding: { llm: scripted }\n${CIRCLE}`,
    );
    const o = io({});
    expect(await validateCommand([spell], o)).toBe(EXIT.ok);
    expect(o.err).toBe("");
  });

  it("does not take data named llm for an LLM (the code medium's state, inputs)", async () => {
    const spell = write(
      "g.yaml",
      `identity: {}\nllm: scripted\ninputs: { type: object, properties: { llm: { type: string, default: openai/x } } }\ncircle:\n  medium: code\n  state: { llm: openai/gpt-4.1 }\n  gates: [done]\n  wards: [{ max_turns: 3 }]\n`,
    );
    const o = io({});
    expect(await validateCommand([spell], o)).toBe(EXIT.ok);
    expect(o.err).not.toMatch(/API_KEY/);
  });

  it("finds every llm of the file: a child's on call_entity and folding's", async () => {
    const spell = write(
      "f.yaml",
      `identity: {}\nllm: scripted\nfolding: { llm: openai/gpt-4.1-mini }\ncircle:\n  gates: [done, { call_entity: { llm: openrouter/x/y } }]\n  wards: [{ max_turns: 3 }]\n`,
    );
    const o = io({});
    expect(await validateCommand([spell], o)).toBe(EXIT.ok);
    expect(o.err).toMatch(/f\.yaml:3:\d+: warning: OPENAI_API_KEY is not set/);
    expect(o.err).toMatch(/f\.yaml:5:\d+: warning: OPENROUTER_API_KEY is not set/);
  });
});
