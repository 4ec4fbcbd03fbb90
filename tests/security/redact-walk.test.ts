// Issue 40: redaction walks a value instead of copying it, and remembers short strings. Neither
// may let a secret through: a string seen before a secret was known is redacted once it is, a
// secret nested anywhere (a key, an array, deep inside an object that is otherwise unchanged)
// is redacted in the copy, and the value given is never changed.
import { describe, expect, it } from "vitest";
import { redactDeep } from "../../src/core/redact-stream.js";
import { REDACTED, Redactor } from "../../src/core/redact.js";

const KEY = "k3y-0123456789-secret";

describe("the Redactor's memory of short strings", () => {
  it("a string redacted before a secret was added is redacted after it", () => {
    const r = new Redactor();
    const text = `token ${KEY}`;
    expect(r.redact(text)).toBe(text); // remembered as it is: no secret known yet
    r.add(KEY);
    expect(r.redact(text)).toBe(`token ${REDACTED}`);
  });

  it("every shape is still found, short or long, alone or among other text", () => {
    const r = new Redactor();
    const shapes = [
      "sk-abcdefghijklmnop1234",
      "Bearer abcdefghijklmnop1234",
      "bearer abcdefghijklmnop1234",
      "xoxb-1234567890ab",
      "ghp_abcdefghijklmnopqrstu",
      "AKIAABCDEFGHIJKLMNOP",
      "key_ASIAABCDEFGHIJKLMNOP",
    ];
    for (const shape of shapes) {
      expect(r.redact(shape)).not.toBe(shape);
      expect(r.redact(shape)).toContain(REDACTED);
      const long = `${"x ".repeat(60)}${shape} ${"y ".repeat(60)}`;
      expect(r.redact(long)).toContain(REDACTED);
      expect(r.redact(long)).not.toContain(shape.slice(-12));
    }
  });

  it("text without a secret or a shape comes back as it was", () => {
    const r = new Redactor();
    r.add(KEY);
    for (const text of ["type", "entityId", "sk- short", "a Bearer of news", "x".repeat(500)])
      expect(r.redact(text)).toBe(text);
  });
});

describe("redactDeep", () => {
  const redactor = new Redactor();
  redactor.add(KEY);
  const redact = (t: string) => redactor.redact(t);

  it("a value without a secret is the same value (nothing copied)", () => {
    const record = { type: "turn", a: [1, "two", { three: null }], b: { c: true } };
    expect(redactDeep(record, redact)).toBe(record);
  });

  it("a secret deep inside: a copy, redacted there, the rest equal and the given value unchanged", () => {
    const record = {
      type: "turn",
      before: { kept: "x" },
      calls: [{ args: { text: "hi" } }, { args: { text: `use ${KEY}` } }],
      after: [1, 2],
    };
    const given = structuredClone(record);
    const out = redactDeep(record, redact);
    expect(out).not.toBe(record);
    expect(out.calls[1]!.args.text).toBe(`use ${REDACTED}`);
    expect(out.calls[0]).toBe(record.calls[0]); // unchanged parts are shared, equal
    expect(out.before).toEqual({ kept: "x" });
    expect(out.after).toEqual([1, 2]);
    expect(Object.keys(out)).toEqual(["type", "before", "calls", "after"]);
    expect(record).toEqual(given);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it("a key holding a secret is redacted, and a `__proto__` key stays an own key", () => {
    const parsed = JSON.parse(`{"${KEY}": 1, "__proto__": {"x": "${KEY}"}}`) as object;
    const out = redactDeep(parsed, redact);
    expect(Object.keys(out)).toEqual([REDACTED, "__proto__"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it("an object that is not plain is copied to its own keys, as before (its toJSON is not kept)", () => {
    class Holder {
      shown = "fine";
      toJSON() {
        return { hidden: KEY };
      }
    }
    const holder = new Holder();
    const out = redactDeep({ holder }, redact);
    expect(out.holder).not.toBe(holder);
    expect(JSON.stringify(out)).toBe('{"holder":{"shown":"fine"}}');
  });
});
