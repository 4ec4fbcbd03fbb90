import { inspect } from "node:util";
import { expect } from "vitest";

/** PROD-8 probes: a secret with every character an encoder changes. */
export const SECRET = 'pa"ss\\word\nwith space/é?&=+%';

/** Every spelling of SECRET an output could carry. */
export function encodings(secret: string): Record<string, string> {
  const json = JSON.stringify(secret).slice(1, -1);
  return {
    raw: secret,
    json,
    double: JSON.stringify(json).slice(1, -1),
    triple: JSON.stringify(JSON.stringify(json).slice(1, -1)).slice(1, -1),
    asciiJson: json.replace(/é/g, "\\u00e9"),
    uriComponent: encodeURIComponent(secret),
    uriComponentLower: encodeURIComponent(secret).toLowerCase(),
    uri: encodeURI(secret),
    form: new URLSearchParams({ k: secret }).toString().slice(2),
    urlQuery: new URL(`http://h/?${secret}`).search.slice(1),
    inspect: inspect(secret).slice(1, -1),
    // JSON lets a writer spell any character as \uXXXX (a model writing a tool call's arguments).
    unicodeEscaped: unicodeEscaped(secret, () => true),
    unicodeEscapedUpper: unicodeEscaped(secret, () => true).replace(/u00([a-f0-9]{2})/g, (m) =>
      m.toUpperCase().replace("U", "u"),
    ),
    unicodeEscapedMixed: unicodeEscaped(secret, (i) => i % 2 === 0),
    unicodeEscapedTwice: unicodeEscaped(secret, () => true).replace(/\\u/g, "\\\\u"),
  };
}

/** The secret as JSON string content, with the characters `pick` chooses written as \uXXXX. */
export function unicodeEscaped(secret: string, pick: (i: number) => boolean): string {
  return [...secret]
    .map((c, i) =>
      pick(i)
        ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
        : JSON.stringify(c).slice(1, -1),
    )
    .join("");
}

export function expectClean(text: string, where: string): void {
  for (const [form, value] of Object.entries(encodings(SECRET)))
    expect(text.includes(value), `${where} holds the secret ${form}: ${value}`).toBe(false);
}
