// What the SDK's error kept under a coded provider error holds once read (sdk-errors.ts): its
// text redacted in place, whatever shape it has, and reading it never throws. Fake keys only.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/core/redact.js";
import { ErrorBodies, fromSDKError } from "../../src/llm/providers/sdk-errors.js";

const KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123";
const redactor = new Redactor();
redactor.add(KEY);
const redact = (t: string) => redactor.redact(t);

/** An SDK-like API error: a status, a body and headers, its message quoting the key. */
function apiError(body: unknown): Error & Record<string, unknown> {
  const err = new Error(`401 Incorrect API key provided: ${KEY}`) as Error &
    Record<string, unknown>;
  Object.assign(err, {
    status: 401,
    error: body,
    headers: new Headers({ "x-echo": KEY }),
    param: KEY,
  });
  return err;
}

describe("the SDK's error under a coded one", () => {
  it("keeps its class, status and shape, with every string redacted: message, body, headers, causes", () => {
    const inner = new Error(`socket said ${KEY}`);
    const err = apiError({ error: { message: `bad key ${KEY}`, list: [KEY, 1] } });
    err.cause = inner;
    const coded = fromSDKError(err, "openai", redact) as Error & { code: string };
    expect(coded.code).toBe("provider_auth");
    expect(coded.cause).toBe(err);
    expect(err.status).toBe(401);
    expect(err.error).toEqual({
      error: { message: "bad key [REDACTED]", list: ["[REDACTED]", 1] },
    });
    expect((err.headers as Headers).get("x-echo")).toBe("[REDACTED]");
    expect(err.param).toBe("[REDACTED]");
    expect(inner.message).toBe("socket said [REDACTED]");
    const printed = inspect(coded, { depth: Infinity, showHidden: true });
    expect(printed).not.toContain(KEY.slice(0, 12));
  });

  it("a body too deep or cyclic to walk becomes a marker; the coded error still comes back", () => {
    const cyclic: Record<string, unknown> = { message: `bad key ${KEY}` };
    cyclic["self"] = cyclic;
    let deep: unknown = KEY;
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    for (const body of [cyclic, deep]) {
      const err = apiError(body);
      const coded = fromSDKError(err, "openai", redact) as Error & { code: string };
      expect(coded.code).toBe("provider_auth");
      expect(err.error).toBe("[unreadable: too deep to redact]");
      expect(err.message).not.toContain(KEY);
    }
  });

  it("a class instance it holds is left as it is", () => {
    class Socketish {
      readonly peer = "127.0.0.1";
    }
    const socket = new Socketish();
    const err = apiError({});
    err["socket"] = socket;
    fromSDKError(err, "openai", redact);
    expect(err["socket"]).toBe(socket);
  });
});

describe("the SDK's error under a coded one, wherever it hides the key", () => {
  /** Everything the coded error shows when printed whole, hidden properties included. */
  const printed = (coded: unknown) => inspect(coded, { depth: Infinity, showHidden: true });
  const base = () => apiError({ error: { message: "bad request" } });

  const hiding: Record<string, () => unknown> = {
    "a header's name": () => Object.assign(base(), { headers: new Headers({ [KEY]: "1" }) }),
    "a symbol-keyed property": () => Object.assign(base(), { [Symbol("echo")]: KEY }),
    "a symbol's description": () => Object.assign(base(), { [Symbol(KEY)]: 1 }),
    "a non-enumerable property": () =>
      Object.defineProperty(base(), "hidden", { value: KEY, configurable: true }),
    "an AggregateError's errors": () => new AggregateError([new Error(`echo ${KEY}`)], "many"),
    "a native cause under a cause": () =>
      Object.assign(new TypeError("fetch failed"), {
        cause: new Error("socket", {
          cause: Object.assign(new Error(`connect ${KEY}`), { code: "ECONNREFUSED" }),
        }),
      }),
    "a cause that is text": () => Object.assign(base(), { cause: `echo ${KEY}` }),
    "a chain of causes deeper than is walked": () => {
      let cause = new Error(`echo ${KEY}`);
      for (let i = 0; i < 12; i++) cause = new Error("wrapped", { cause });
      return Object.assign(base(), { cause });
    },
    "a frozen error": () => Object.freeze(apiError({ error: { message: `bad key ${KEY}` } })),
    "a thrown string": () => `echo ${KEY}`,
    "the provider's error code": () => apiError({ error: { message: "no", code: KEY } }),
    "the provider's error type": () => apiError({ error: { message: "no", type: KEY } }),
  };
  for (const [where, make] of Object.entries(hiding)) {
    it(`shows no key held in ${where}`, () => {
      const coded = fromSDKError(make(), "openai", redact) as Error & { code: string };
      expect(coded.code).toMatch(/^provider_/);
      const text = printed(coded);
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(3, 20));
    });
  }

  it("a frozen error is kept as a redacted copy of its class; an AggregateError keeps its errors", () => {
    const frozen = Object.freeze(apiError({ error: { message: `bad key ${KEY}` } }));
    const coded = fromSDKError(frozen, "openai", redact) as Error & {
      cause: Error & Record<string, unknown>;
    };
    expect(coded.cause).not.toBe(frozen);
    expect(coded.cause).toBeInstanceOf(Error);
    expect(coded.cause.status).toBe(401);
    expect(coded.cause.message).toBe("401 Incorrect API key provided: [REDACTED]");
    const inner = new Error(`echo ${KEY}`);
    const many = new AggregateError([inner], "many");
    expect((fromSDKError(many, "openai", redact) as Error).cause).toBe(many);
    expect(many.errors[0]).toBe(inner);
    expect(inner.message).toBe("echo [REDACTED]");
  });

  it("a getter-only message and an immutable Headers do not break it", () => {
    const err = apiError({ error: { message: "no" } });
    Object.defineProperty(err, "message", { get: () => `401 ${KEY}`, configurable: false });
    const headers = new Response("", { headers: { "x-echo": KEY } }).headers; // immutable
    Object.assign(err, { headers });
    const coded = fromSDKError(err, "openai", redact) as Error & {
      cause: Error & { headers: Headers };
    };
    expect(coded.cause.message).toBe("401 [REDACTED]");
    expect(coded.cause.headers.get("x-echo")).toBe("[REDACTED]");
    expect(printed(coded)).not.toContain(KEY);
  });
});

describe("a failure's text body quoted in the coded error", () => {
  it("is redacted whole before it is cut: no start of the key is kept", () => {
    // A server answering text (not JSON) whose key starts just before the quote's end.
    const text = `${"x".repeat(489)} ${KEY} and more`;
    const bodies = new ErrorBodies();
    const headers = new Headers();
    bodies.keep(headers, text);
    const err = Object.assign(new Error(`401 ${text}`), { status: 401, headers });
    const coded = fromSDKError(err, "openai", redact, bodies) as Error;
    expect(coded.message).not.toContain(KEY.slice(0, 8));
    expect(coded.message.length).toBeLessThan(700);
  });
});
