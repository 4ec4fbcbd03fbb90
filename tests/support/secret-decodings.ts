import { expect } from "vitest";
import { encodings } from "./secret-encodings.js";

/**
 * PROD-8 probes beyond text spellings: a secret's bytes in base64 and hex, and the secret
 * written backwards (issue 38: `spell serve`'s session loom passed them).
 */
export function binaryEncodings(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, "utf8");
  const reversed = [...secret].reverse().join("");
  // Inside a longer encoded text, the secret starts at each of base64's three byte offsets:
  // a Basic authorization header, a JSON document in base64, a line of `base64` output.
  const within = (prefix: string) => Buffer.from(`${prefix}${secret}\n`).toString("base64");
  return {
    base64: bytes.toString("base64"),
    base64Unpadded: bytes.toString("base64").replace(/=+$/, ""),
    base64url: bytes.toString("base64url"),
    base64urlPadded: bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_"),
    base64Percent: encodeURIComponent(bytes.toString("base64")),
    base64BasicAuth: within("user:"),
    base64Offset1: within("ab"),
    base64Offset2: within("abc"),
    base64urlOffset1: Buffer.from(`ab${secret}`).toString("base64url"),
    hex: bytes.toString("hex"),
    hexUpper: bytes.toString("hex").toUpperCase(),
    reversed,
    reversedJson: JSON.stringify(reversed).slice(1, -1),
  };
}

/** Every text spelling and every binary encoding of `secret`. */
export function allEncodings(secret: string): Record<string, string> {
  return {
    ...encodings(secret),
    // Only the %XX escapes in lower case (encodings' own lower-cases a whole probe it made).
    uriComponentLower: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ...binaryEncodings(secret),
  };
}

/**
 * Fails when `text` carries `secret` in any form a reader could decode: written plainly or
 * backwards (in any spelling of `encodings`), or as bytes inside any base64 or hex run (each run
 * decoded from each of its possible starts, so a secret in the middle of a longer encoded text
 * is found too).
 */
export function expectNoSecret(text: string, secret: string, where: string): void {
  const spelled = allEncodings(secret);
  const reversedText = [...text].reverse().join("");
  for (const [form, value] of Object.entries(spelled)) {
    expect(text.includes(value), `${where} holds the secret ${form}: ${value}`).toBe(false);
    expect(reversedText.includes(value), `${where} holds the secret reversed, ${form}`).toBe(false);
  }
  const bytes = Buffer.from(secret, "utf8");
  for (const run of text.match(/[A-Za-z0-9+/_-]{6,}/g) ?? [])
    for (let start = 0; start < 4; start++) {
      const decoded = Buffer.from(run.slice(start), "base64");
      expect(decoded.includes(bytes), `${where} holds the secret in base64: ${run}`).toBe(false);
    }
  for (const run of text.match(/[0-9a-fA-F]{8,}/g) ?? [])
    for (let start = 0; start < 2; start++) {
      const decoded = Buffer.from(run.slice(start), "hex");
      expect(decoded.includes(bytes), `${where} holds the secret in hex: ${run}`).toBe(false);
    }
}
