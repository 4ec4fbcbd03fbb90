import { expect } from "vitest";
import { allEncodings } from "./secret-decodings.js";
import { SECRET } from "./secret-encodings.js";

/**
 * PROD-8 probes for a value that leaves the process encoded (issue 40, night: the JSON exits).
 * `SECRET` (with `"`, `\` and a newline) is a spell's `${env:…}` value; `quoted(n)` is a text
 * holding it as JSON quoted `n` times (a loom line in a report in a tool call's arguments): the
 * redactor knows a secret quoted up to three times, so an exit that encodes such a value and
 * redacts only the text it wrote sends it quoted four times. `SHAPED` is a key known by its
 * shape alone, after a newline (`\nsk-…` once encoded). Fake values only.
 */
export { SECRET };
export const SHAPED_KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123";
export const SHAPED = `a\n${SHAPED_KEY}`;

/** A text holding SECRET as JSON quoted `n` times. */
export function quoted(n: number, secret = SECRET): string {
  let v: unknown = secret;
  for (let i = 0; i < n; i++) v = JSON.stringify({ v });
  return v as string;
}

/**
 * `text` holds neither secret in any form: raw, JSON-escaped any number of times (a piece
 * JSON never escapes), URL-encoded, base64, hex, reversed; nor the shaped key.
 */
export function expectNoSecret(
  text: string,
  where: string,
  secret = SECRET,
  /** A piece of `secret` JSON never escapes: found at any depth of quoting. */
  piece = "with space",
): void {
  for (const [form, value] of Object.entries(allEncodings(secret)))
    expect(text.includes(value), `${where} holds the secret ${form}: ${value}`).toBe(false);
  expect(text, `${where} holds a piece of the secret`).not.toContain(piece);
  for (const [form, value] of Object.entries(allEncodings(SHAPED_KEY)))
    expect(text.includes(value), `${where} holds the shaped key ${form}`).toBe(false);
  expect(text, `${where} holds the shaped key's token`).not.toContain("abcdefghijklmnopqrstuvwxyz");
}
