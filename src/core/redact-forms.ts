import { inspect } from "node:util";

/**
 * The forms a secret can take in text we print (PROD-8): a value is redacted not only as
 * written but as every encoding an output can carry it in — its text spellings (below), the
 * same spellings of the secret reversed, and its bytes in base64 and hex (`encodedForms`).
 * Each form is a literal string; URL encodings, whose spellings vary (upper or lower case hex,
 * `+` or `%20`, characters an encoder leaves alone), are matched by one pattern instead: see
 * `urlPattern`.
 */
export function secretForms(secret: string): string[] {
  const forms = [...textForms(secret), ...reversed(secret).flatMap(textForms)];
  return [...new Set([...forms, ...encodedForms(secret)])];
}

/** The spellings of a text inside what we print: raw, JSON-escaped (1–3 times), inspected. */
function textForms(secret: string): string[] {
  const json = jsonInner(secret);
  return [
    secret,
    json, // inside a JSON string: `"` → \", `\` → \\, newline → \n
    asciiJsonInner(secret), // the same with every non-ASCII character as \uXXXX
    jsonInner(json), // JSON text inside a JSON string (a tool call's arguments, exported)
    jsonInner(jsonInner(json)), // and once more (a loom line quoted in a JSON report)
    inspect(secret).slice(1, -1), // util.inspect / console.log of an object
    jsonInner(inspect(secret).slice(1, -1)),
  ];
}

/** The secret written backwards: by code point (as a person or Python's `[::-1]` does) and by UTF-16 unit. */
function reversed(secret: string): string[] {
  return [...new Set([[...secret].reverse().join(""), secret.split("").reverse().join("")])];
}

/**
 * The secret's UTF-8 bytes as binary-to-text encoders print them: hex (either case) and base64
 * (standard and URL-safe, padded or not). Inside a longer base64 run the secret starts at one of
 * three byte offsets, and only the characters at its edges depend on its neighbours: for each
 * offset, the characters that depend on the secret's bytes alone are one more form (the way
 * GitHub Actions masks a secret's base64), so `base64(prefix + secret + suffix)` hides it too.
 */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const hex = bytes.toString("hex");
  const base64 = bytes.toString("base64");
  const forms = [hex, hex.toUpperCase(), base64, base64.replace(/=+$/, "")];
  for (let offset = 0; offset < 3; offset++) {
    const text = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Characters wholly inside the secret's bits: from the first after the offset's bits
    // to the last before the bytes that follow.
    forms.push(
      text.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6)),
    );
  }
  // URL-safe base64 is the standard alphabet with `-` and `_` for `+` and `/`.
  return [...forms, ...forms.map((f) => f.replace(/\+/g, "-").replace(/\//g, "_"))];
}

/**
 * Base64 forms holding `+`, `/` or `=`, which a URL or a form body carries percent-encoded
 * (`%2B`, `%2f`, …): matched by `urlPattern` where the text holds a `%`.
 */
export function percentEncodable(secret: string): string[] {
  return encodedForms(secret).filter((f) => encodeURIComponent(f) !== f);
}

function jsonInner(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function asciiJsonInner(text: string): string {
  return jsonInner(text).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A pattern for the secret URL-encoded in any spelling: each character as itself or as its
 * UTF-8 bytes in %XX (either case); a space also as `+`. Null when the secret has no character
 * an encoder would change (then the raw form already covers it), unless `always`: a URL parser
 * also decodes characters no encoder changes (`%61` is `a`), so text holding a `%` is tried
 * with every secret's pattern.
 */
export function urlPattern(secret: string, always = false): RegExp | null {
  if (!always && encodeURIComponent(secret) === secret) return null;
  let source = "";
  for (const char of secret) {
    const bytes = [...Buffer.from(char, "utf8")]
      .map((b) => `%${b.toString(16).padStart(2, "0")}`)
      .join("");
    // The encoded spelling first: a literal `%` must not match the start of `%25`.
    const alternatives = [
      bytes.replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`),
      escapeRegExp(char),
    ];
    if (char === " ") alternatives.push("\\+");
    if (char === "\\") alternatives.push("/"); // the URL parser's reading of a backslash
    // The URL parser drops tabs and newlines.
    source += `(?:${alternatives.join("|")})${/^[\t\n\r]$/.test(char) ? "?" : ""}`;
  }
  return new RegExp(source, "g");
}

/**
 * A pattern for the secret inside JSON text with any of its characters written as `\uXXXX`
 * (either case, once or twice escaped): JSON lets a writer — a model writing a tool call's
 * arguments, say — spell each character so, and a reader decoding the JSON gets the secret back.
 * Used only on text that holds a `\u` at all; the literal forms cover the rest.
 */
export function unicodeEscapePattern(secret: string): RegExp {
  let source = "";
  for (let i = 0; i < secret.length; i++) {
    const char = secret[i]!;
    const hex = secret
      .charCodeAt(i)
      .toString(16)
      .padStart(4, "0")
      .replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`);
    const literal = [...new Set([char, jsonInner(char), jsonInner(jsonInner(char))])].map(
      escapeRegExp,
    );
    source += `(?:\\\\{1,3}u${hex}|${literal.join("|")})`;
  }
  return new RegExp(source, "g");
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
