import { describe, expect, it } from "vitest";
import { ModelError, SystemError } from "../../src/core/errors.js";
import type { LLM, LLMResponse } from "../../src/core/contract.js";
import { classifyHttpError, parseRetryAfter, ProviderError } from "../../src/llm/errors.js";
import { createOpenAICompatible } from "../../src/llm/providers/openai/openai-llm.js";
import {
  backoffDelay,
  DEFAULT_RETRY,
  isRetryable,
  realSleep,
  retryPolicy,
  RetryingLLM,
} from "../../src/llm/retry.js";
import { body, failure, sse, testContext, withProvider } from "../support/providers.js";

const ok: LLMResponse = {
  content: "ok",
  toolCalls: null,
  usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
};

/** An LLM that fails with the given errors, then answers. */
function flaky(errors: Error[]): LLM & { calls: number } {
  const llm = {
    name: "flaky",
    calls: 0,
    query() {
      llm.calls++;
      const err = errors.shift();
      return err === undefined ? Promise.resolve({ ...ok }) : Promise.reject(err);
    },
  };
  return llm;
}

const http = (status: number, retryAfterMs?: number) =>
  classifyHttpError("test", status, `status ${status}`, { retryAfterMs });

function retrying(inner: LLM, spec: Parameters<typeof retryPolicy>[0] = {}) {
  const sleeps: number[] = [];
  const llm = new RetryingLLM(inner, retryPolicy(spec), {
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5, // no jitter: the midpoint
  });
  return { llm, sleeps };
}

describe("retry policy (PROD-2)", () => {
  it("defaults: 3 retries, 1 s base, 60 s cap", () => {
    expect(DEFAULT_RETRY).toEqual({
      maxRetries: 3,
      baseDelayMs: 1000,
      maxDelayMs: 60000,
      retryableStatusCodes: "default",
    });
  });

  it("backs off exponentially from 1 s, with jitter, capped", () => {
    const p = retryPolicy({});
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, p, () => 0.5))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(backoffDelay(1, p, () => 0)).toBe(750);
    expect(backoffDelay(1, p, () => 0.999)).toBe(1250);
    expect(backoffDelay(10, p, () => 0.5)).toBe(60000);
  });

  it("retries 429 and every 5xx, and connection failures; never other 4xx or a context overflow", () => {
    const p = retryPolicy({});
    for (const s of [429, 500, 502, 503, 504, 529]) expect(isRetryable(http(s), p)).toBe(true);
    for (const s of [400, 401, 403, 404, 408, 409, 422])
      expect(isRetryable(http(s), p)).toBe(false);
    expect(
      isRetryable(new ProviderError("provider_connection", "reset", { provider: "x" }), p),
    ).toBe(true);
    expect(
      isRetryable(new ProviderError("provider_stream_incomplete", "cut", { provider: "x" }), p),
    ).toBe(true);
    expect(isRetryable(classifyHttpError("x", 400, "maximum context length is 10 tokens"), p)).toBe(
      false,
    );
    expect(isRetryable(new ModelError("empty_response", "x"), p)).toBe(false);
    expect(isRetryable(new SystemError("provider_error", "scripted", { status: 503 }), p)).toBe(
      true,
    );
  });

  it("retryable_status_codes narrows the set; a 4xx other than 429 is refused", () => {
    const p = retryPolicy({ retryableStatusCodes: [429, 503] });
    expect(isRetryable(http(503), p)).toBe(true);
    expect(isRetryable(http(500), p)).toBe(false);
    expect(() => retryPolicy({ retryableStatusCodes: [400] })).toThrow(/400 cannot be retried/);
  });

  it("parses Retry-After: seconds, an HTTP date, retry-after-ms", () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(parseRetryAfter(h({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfter(h({ "retry-after-ms": "150", "retry-after": "9" }))).toBe(150);
    expect(
      parseRetryAfter(
        h({ "retry-after": new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString() }),
        Date.UTC(2030, 0, 1),
      ),
    ).toBe(10000);
    expect(parseRetryAfter(h({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(h({}))).toBeUndefined();
  });
});

describe("RetryingLLM", () => {
  it("a retried query is one answer, with the attempt count in its metadata", async () => {
    const inner = flaky([http(429), http(503)]);
    const { llm, sleeps } = retrying(inner);
    const r = await llm.query([{ role: "user", content: "x" }]);
    expect(r.content).toBe("ok");
    expect(r.metadata).toEqual({ attempts: 3 });
    expect(inner.calls).toBe(3);
    expect(sleeps).toEqual([1000, 2000]);
  });

  it("honours Retry-After instead of the backoff", async () => {
    const { llm, sleeps } = retrying(flaky([http(429, 4500)]));
    await llm.query([]);
    expect(sleeps).toEqual([4500]);
  });

  it("gives up after max_retries and says how many attempts were made", async () => {
    const inner = flaky([http(500), http(500), http(500), http(500), http(500)]);
    const { llm, sleeps } = retrying(inner);
    const err = await failure(llm.query([]));
    expect(err.code).toBe("provider_server_error");
    expect(err.status).toBe(500);
    expect(err.message).toContain("gave up after 4 attempts");
    expect(inner.calls).toBe(4);
    expect(sleeps).toHaveLength(3);
  });

  it("never retries a 4xx other than 429", async () => {
    for (const status of [400, 401, 403, 404]) {
      const inner = flaky([http(status)]);
      const { llm, sleeps } = retrying(inner);
      expect((await failure(llm.query([]))).status).toBe(status);
      expect(inner.calls).toBe(1);
      expect(sleeps).toEqual([]);
    }
  });

  it("max_retries: 0 means one attempt", async () => {
    const inner = flaky([http(503)]);
    const { llm } = retrying(inner, { maxRetries: 0 });
    await failure(llm.query([]));
    expect(inner.calls).toBe(1);
  });

  it("gives up at once when the server asks for a wait longer than max_delay_ms", async () => {
    const inner = flaky([http(429, 120_000)]);
    const { llm, sleeps } = retrying(inner);
    const err = await failure(llm.query([]));
    expect(err.message).toMatch(/asked to wait 120 s .* longer than llm.retry.max_delay_ms/);
    expect(sleeps).toEqual([]);
  });

  it("a cancel during the wait stops the retries", async () => {
    const controller = new AbortController();
    const inner = flaky([http(503), http(503)]);
    const llm = new RetryingLLM(inner, retryPolicy({ baseDelayMs: 10_000 }), {
      sleep: realSleep,
    });
    const pending = llm.query([], { signal: controller.signal });
    setTimeout(() => controller.abort("interrupted"), 20);
    await expect(pending).rejects.toBe("interrupted");
    expect(inner.calls).toBe(1);
  });

  it("retries a real adapter's 429 (Retry-After), 529, and dropped stream, through the loopback server", async () => {
    await withProvider(
      [
        body("openai/error-rate-limit.json", 429, { "retry-after": "2" }),
        body("openai/error-server.json", 529),
        sse("openai/chat-text.sse", 2),
        sse("openai/chat-text.sse"),
      ],
      async (server) => {
        const ctx = testContext({ OPENAI_API_KEY: "sk-test-0123456789abcdefghij" });
        const adapter = createOpenAICompatible(
          "openai",
          { provider: "openai", model: "gpt-4.1", baseUrl: `${server.url}/v1` },
          ctx,
        );
        const llm = new RetryingLLM(adapter, retryPolicy({}), {
          sleep: ctx.sleep!,
          random: () => 0.5,
        });
        const r = await llm.query([{ role: "user", content: "x" }], { onDelta: () => undefined });
        expect(r.content).toBe("There are 3 files.");
        expect(r.metadata?.["attempts"]).toBe(4);
        expect(server.requests).toHaveLength(4);
        expect(ctx.sleeps).toEqual([2000, 2000, 4000]);
      },
    );
  });

  it("does not retry a real adapter's 400 or 401", async () => {
    await withProvider(
      [body("openai/error-bad-request.json", 400), body("openai/error-invalid-key.json", 401)],
      async (server) => {
        const ctx = testContext({ OPENAI_API_KEY: "sk-test-0123456789abcdefghij" });
        const adapter = createOpenAICompatible(
          "openai",
          { provider: "openai", model: "gpt-4.1", baseUrl: `${server.url}/v1` },
          ctx,
        );
        const llm = new RetryingLLM(adapter, retryPolicy({}), { sleep: ctx.sleep! });
        expect((await failure(llm.query([]))).status).toBe(400);
        expect((await failure(llm.query([]))).status).toBe(401);
        expect(server.requests).toHaveLength(2);
      },
    );
  });
});
