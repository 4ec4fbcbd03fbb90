// What the SDK's error kept under a coded provider error holds once read (sdk-errors.ts): its
// text redacted in place, whatever shape it has, and reading it never throws. Fake keys only.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/core/redact.js";
import { fromSDKError } from "../../src/llm/providers/sdk-errors.js";

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
