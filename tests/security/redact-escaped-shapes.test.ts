// Issue 40 (night): the Redactor finds a key's shape after a JSON escape (`\nsk-…` in a tool
// call's arguments or an answer sent as JSON), where `\b` sees the escape's letter.
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../src/core/redact.js";
import { redactDeep } from "../../src/core/redact-stream.js";

describe("a key's shape after a JSON escape is redacted (issue 40, night)", () => {
  const r = new Redactor();
  const shapes = [
    "sk-abcdefghijklmnop1234",
    "Bearer abcdefghijklmnop1234",
    "xoxb-1234567890ab",
    "ghp_abcdefghijklmnopqrstu",
    "AKIAABCDEFGHIJKLMNOP",
  ];
  const escapes = ["\n", "\t", "\r\n", "\b", "\f", "\u000b", "\u001f"];

  it("in JSON text, once or twice encoded, and in a tool call's arguments", () => {
    for (const shape of shapes)
      for (const escape of escapes) {
        const value = `line${escape}${shape}${escape}`;
        const once = JSON.stringify({ answer: value });
        const twice = JSON.stringify({ arguments: once });
        for (const text of [once, twice]) {
          const out = r.redact(text);
          expect(out, text).toContain(REDACTED);
          expect(out, text).not.toContain(shape.slice(-12));
        }
        const record = redactDeep({ gateCalls: [{ arguments: once }] }, (t) => r.redact(t));
        expect(JSON.stringify(record)).not.toContain(shape.slice(-12));
      }
  });

  it("Bearer and its token with an escaped space between them", () => {
    for (const space of ["\t", "\n", "\u000b", "\f"]) {
      const text = JSON.stringify(`auth: Bearer${space}abcdefghijklmnop1234`);
      expect(r.redact(text), text).not.toContain("abcdefghijklmnop1234");
      expect(r.redact(JSON.stringify(text)), text).not.toContain("abcdefghijklmnop1234");
    }
  });

  it("text that only looks near a shape stays as it was", () => {
    for (const text of ["xsk-abcdefghijklmnop1234", "a Bearer of news", "XAKIAABCDEFGHIJKLMNOP"])
      expect(r.redact(text)).toBe(text);
  });
});
