// A failure that arrives as the cast is cancelled is thrown as it is (a cancel is not a
// provider failure), but never with the key a server echoed: the SDK's error is redacted in
// place all the same. Fake key; the fetch is the test's own, no network.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/core/redact.js";
import { AnthropicLLM } from "../../src/llm/providers/anthropic/anthropic-llm.js";
import { OpenAICompatibleLLM } from "../../src/llm/providers/openai/openai-llm.js";

const KEY = "fake-provider-key-0123456789abcdefghij";

describe("a failure that arrives as the cast is cancelled", () => {
  const redactor = new Redactor();
  redactor.add(KEY);
  const redact = (t: string) => redactor.redact(t);
  const options = (controller: AbortController) => ({
    model: "m",
    baseURL: "http://127.0.0.1:9/v1",
    apiKey: KEY,
    redact,
    // The answer comes, and the cast is cancelled as it does.
    fetch: (() => {
      controller.abort();
      return Promise.resolve(
        new Response(JSON.stringify({ error: { message: `Incorrect API key: ${KEY}` } }), {
          status: 401,
          headers: { "content-type": "application/json", "x-echo": KEY },
        }),
      );
    }) as typeof fetch,
  });
  const adapters = {
    openai: (c: AbortController) => new OpenAICompatibleLLM({ flavor: "openai", ...options(c) }),
    anthropic: (c: AbortController) => new AnthropicLLM(options(c)),
  };
  for (const [name, make] of Object.entries(adapters)) {
    it(`${name}: what is thrown shows no key`, async () => {
      const controller = new AbortController();
      const thrown = await make(controller)
        .query([{ role: "user", content: "hi" }], { signal: controller.signal })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(thrown).toBeDefined();
      expect(inspect(thrown, { depth: Infinity, showHidden: true })).not.toContain(KEY);
    });
  }
});
