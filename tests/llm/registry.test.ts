import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { Redactor } from "../../src/core/redact.js";
import { createLLM, providerRegistry } from "../../src/llm/registry.js";
import { RequiredToolChoiceLLM } from "../../src/llm/require-tool.js";
import { RetryingLLM } from "../../src/llm/retry.js";
import { PricedLLM, unpriced } from "../../src/llm/priced.js";
import { loadSpellText } from "../../src/spell/index.js";
import { failure } from "../support/providers.js";

const schema = JSON.parse(
  readFileSync(new URL("../../schemas/spell.schema.json", import.meta.url), "utf8"),
) as {
  $defs: { llm_object: { properties: { provider: { enum: string[] } } } };
};

const ctx = (env: Record<string, string> = {}) => ({
  redactor: new Redactor(),
  env,
  baseDir: process.cwd(),
});

describe("provider registry", () => {
  it("matches the schema's provider enum in both directions", () => {
    expect([...schema.$defs.llm_object.properties.provider.enum].sort()).toEqual(
      Object.keys(providerRegistry).sort(),
    );
  });

  it.each([
    ["openai", "OPENAI_API_KEY"],
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["openrouter", "OPENROUTER_API_KEY"],
    ["google", "GEMINI_API_KEY or GOOGLE_API_KEY"],
  ])("%s without a key is a clear error naming %s", async (provider, vars) => {
    const err = await failure(createLLM({ provider, model: "m" }, ctx()));
    expect(err.code).toBe("api_key_missing");
    expect(err.message).toContain(vars);
  });

  it("a missing key fails the spell at load time, positioned at the llm block (before any turn)", async () => {
    const text =
      "llm: openai/gpt-4.1\nidentity: { system_prompt: hi }\ncircle: { gates: [done], wards: [{ max_turns: 3 }] }\n";
    const err = await failure(loadSpellText(text, "spell.yaml", { env: {}, loomPath: "memory" }));
    expect(err).toBeInstanceOf(SpellErrors);
    expect(err.message).toMatch(
      /^spell\.yaml:1:\d+: the openai provider needs an API key: set OPENAI_API_KEY/,
    );
  });

  it("a key from the environment or api_key: ${env:…} is redacted (PROD-8)", async () => {
    const c = ctx({ GOOGLE_API_KEY: "AIza-google-key-0123456789" });
    await createLLM({ provider: "google", model: "gemini-2.5-flash" }, c);
    expect(c.redactor.redact("key=AIza-google-key-0123456789")).toBe("key=[REDACTED]");
    const text =
      "llm: { provider: anthropic, model: claude-sonnet-4-5, api_key: '${env:MY_KEY}' }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 3 }] }\n";
    const loaded = await loadSpellText(text, "spell.yaml", {
      env: { MY_KEY: "my-secret-anthropic-key" },
      loomPath: "memory",
    });
    expect(loaded.redactor.redact("x my-secret-anthropic-key y")).toBe("x [REDACTED] y");
  });

  it("a model is required, and local needs no key", async () => {
    expect(
      (await failure(createLLM({ provider: "openai" }, ctx({ OPENAI_API_KEY: "k-123456" })))).code,
    ).toBe("model_missing");
    const llm = await createLLM({ provider: "local", model: "qwen3" }, ctx());
    expect(llm.name).toBe("local/qwen3");
  });

  it("real providers are wrapped: the price outermost, then the LLM-5 guarantee, one retry policy inside", async () => {
    const priced = await createLLM(
      { provider: "openai", model: "gpt-4.1", retry: { maxRetries: 5 } },
      ctx({ OPENAI_API_KEY: "k-123456" }),
    );
    expect(priced).toBeInstanceOf(PricedLLM);
    const llm = (priced as PricedLLM).inner;
    expect(llm).toBeInstanceOf(RequiredToolChoiceLLM);
    const retry = (llm as RequiredToolChoiceLLM).inner;
    expect(retry).toBeInstanceOf(RetryingLLM);
    expect((retry as RetryingLLM).policy.maxRetries).toBe(5);
  });

  it("a retry block that would retry a 4xx fails the spell", async () => {
    const err = await failure(
      createLLM(
        { provider: "openai", model: "m", retry: { retryableStatusCodes: [429, 404] } },
        ctx({ OPENAI_API_KEY: "k-123456" }),
      ),
    );
    expect(err.code).toBe("retry_status_not_allowed");
  });

  it("scripted replies are retried only when the spell asks", async () => {
    expect(
      unpriced(await createLLM({ provider: "scripted", responses: [] }, ctx())),
    ).not.toBeInstanceOf(RetryingLLM);
    expect(
      unpriced(await createLLM({ provider: "scripted", responses: [], retry: {} }, ctx())),
    ).toBeInstanceOf(RetryingLLM);
  });

  it("base_url must be a URL", async () => {
    expect(
      (
        await failure(
          createLLM({ provider: "local", model: "m", baseUrl: "localhost:11434" }, ctx()),
        )
      ).code,
    ).toBe("bad_base_url");
  });

  it("loading the llm module (and the registry) loads no SDK; building a provider does (built dist/)", () => {
    const script = `const m = await import("./dist/llm/index.js");
      process.stderr.write("IMPORTED\\n");
      await m.createLLM({ provider: "anthropic", model: "x", apiKey: "k-123456" }, { redactor: { add() {} }, env: {}, baseDir: "." });`;
    const r = spawnSync(
      process.execPath,
      [
        "--no-warnings",
        "--loader",
        "./tests/cli/trace-loader.mjs",
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8" },
    );
    const [before, after] = r.stderr.split("IMPORTED");
    expect(after, r.stderr).toBeDefined();
    expect(before!.split("\n").filter((l) => /LOADED (openai|@anthropic-ai)/.test(l))).toEqual([]);
    expect(after).toContain("LOADED @anthropic-ai/sdk");
  });
});
