import { describe, expect, it } from "vitest";
import type { LLM } from "../../src/core/contract.js";
import { createAnthropic } from "../../src/llm/providers/anthropic/anthropic-llm.js";
import { createOpenAICompatible } from "../../src/llm/providers/openai/openai-llm.js";
import { pooledFetch } from "../../src/llm/providers/pooled-fetch.js";
import { bothWays, outcome, serve, shape, type Reply } from "../support/direct-wire.js";
import { ASK_FILES as ask, testContext } from "../support/providers.js";

// A hostile or broken provider against both adapters, each query sent the direct way
// (src/llm/providers/direct-json.ts) and through its SDK (given the pooled fetch), on loopback
// with fake keys: what the key reaches, what the errors say, what an answer may cost.

type Via = "direct" | "sdk";

interface Provider {
  key: string;
  /** The base URL's path on the loopback server. */
  path: string;
  make(baseUrl: string, via: Via, spec?: Record<string, unknown>): LLM;
}

const PROVIDERS: Record<string, Provider> = {
  openai: {
    key: "sk-test-abcdefghijklmnopqrstuvwxyz0123",
    path: "/v1",
    make(baseUrl, via, spec = {}) {
      const ctx = testContext({ OPENAI_API_KEY: this.key });
      if (via === "sdk") ctx.fetch = pooledFetch();
      return createOpenAICompatible(
        "openai",
        { provider: "openai", model: "gpt-4.1", baseUrl, ...spec },
        ctx,
      );
    },
  },
  anthropic: {
    key: "sk-ant-api03-test0123456789abcdefghijkl",
    path: "",
    make(baseUrl, via, spec = {}) {
      const ctx = testContext({ ANTHROPIC_API_KEY: this.key });
      if (via === "sdk") ctx.fetch = pooledFetch();
      return createAnthropic(
        { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl, ...spec },
        ctx,
      );
    },
  },
};

/** Both ways against the same replies: the same error (or answer), the same requests. */
async function same(p: Provider, replies: Reply[], spec?: Record<string, unknown>) {
  const run = await bothWays(
    replies,
    (baseUrl, via) => p.make(baseUrl, via, spec).query(ask),
    p.path,
  );
  expect(shape(run.direct.error)).toEqual(shape(run.sdk.error));
  expect(run.seen.direct).toEqual(run.seen.sdk);
  return run;
}

/** No piece of the key long enough to matter (its first or last twelve characters). */
function expectNoKey(text: string, key: string): void {
  expect(text).not.toContain(key.slice(0, 12));
  expect(text).not.toContain(key.slice(-12));
}

for (const [name, p] of Object.entries(PROVIDERS)) {
  describe(`${name}: a text answer quoting the key`, () => {
    it.each([
      ["whole", (key: string) => `no model for ${key}`],
      ["cut where the message's quote of it ends", (key: string) => `${"x".repeat(100)}${key}`],
    ])("%s: the error quotes it redacted, both ways", async (_, body) => {
      const { direct } = await same(p, [{ status: 200, body: body(p.key) }]);
      const error = direct.error as Error & { code?: string };
      expect(error.code).toBe("provider_bad_response");
      expect(error.message).toMatch(/got text: .*\[REDACTED\]/);
      expectNoKey(error.message, p.key);
    });
  });
}

describe("openai: a streamed event quoting the key", () => {
  it("the error quotes it redacted, whole or cut where the quote ends", async () => {
    const p = PROVIDERS["openai"]!;
    for (const pad of ["", "x".repeat(90)]) {
      const server = await serve([
        {
          headers: { "content-type": "text/event-stream" },
          body: `data: ${JSON.stringify({ message: `${pad}bad key ${p.key}` })}\n\n`,
        },
      ]);
      const { error } = await outcome(
        p.make(`${server.url}${p.path}`, "direct").query(ask, { onDelta: () => {} }),
      );
      expect((error as { code?: string }).code).toBe("provider_bad_response");
      expect((error as Error).message).toMatch(/without choices: .*\[REDACTED\]/);
      expectNoKey((error as Error).message, p.key);
    }
  });
});
