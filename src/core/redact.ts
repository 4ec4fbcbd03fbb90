/**
 * PROD-8: secrets never reach logs, events or default loom exports. Known secret values
 * (API keys, `${env:…}` values) and common shapes (sk-…, bearer tokens) become [REDACTED].
 */
const SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:Bearer|bearer)\s+[A-Za-z0-9._~+/=-]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];

export const REDACTED = "[REDACTED]";

export class Redactor {
  private readonly values = new Set<string>();

  /** Values shorter than 4 characters are not treated as secrets (they would shred text). */
  add(secret: string | undefined | null): void {
    if (secret && secret.length >= 4) this.values.add(secret);
  }

  /** The length of the longest known secret (a stream must hold back this much text). */
  get longest(): number {
    let n = 0;
    for (const value of this.values) n = Math.max(n, value.length);
    return n;
  }

  redact(text: string): string {
    let out = text;
    for (const value of this.values) out = out.split(value).join(REDACTED);
    for (const shape of SHAPES) out = out.replace(shape, REDACTED);
    return out;
  }
}
