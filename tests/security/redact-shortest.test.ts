// Issue 40 (night): the Redactor gives back text shorter than anything it could match without a
// look. That may let no secret through: every encoding of a secret (the shortest text that holds
// it), each as a key and a value nested in a loom record written to a redacting JSONL loom, and
// every shape at its shortest are redacted.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { secretForms, percentEncodable } from "../../src/core/redact-forms.js";
import { REDACTED, Redactor, SHAPE_SHORTEST, shortestMatch } from "../../src/core/redact.js";
import { redactDeep } from "../../src/core/redact-stream.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { SECRET } from "../support/secret-encodings.js";
import { allEncodings, expectNoSecret } from "../support/secret-decodings.js";

const SECRETS = [
  SECRET, // quotes, a backslash, a newline, a space, a non-ASCII letter, URL specials
  "abcd", // the shortest secret
  "a\tb\nc\rd", // tabs and newlines, which a URL parser drops: shorter in a URL than written
  "é漢字x", // multi-byte UTF-8 (the support encodings spell BMP characters only)
  "k3y-0123456789-secret",
];

/** `secret` written every way, and its URL form with the tabs and newlines a URL parser drops. */
const spellings = (secret: string) => [
  ...Object.values(allEncodings(secret)),
  encodeURIComponent(secret).replace(/%0[9AD]/gi, ""),
];

describe("text shorter than any match is given back without a look", () => {
  it("no form of a secret is shorter than the shortest match counted for it", () => {
    for (const secret of SECRETS) {
      const shortest = shortestMatch(secret);
      expect(shortest).toBeLessThanOrEqual(secret.length);
      for (const form of [...secretForms(secret), ...percentEncodable(secret)])
        expect(form.length, JSON.stringify(form)).toBeGreaterThanOrEqual(shortest);
    }
  });

  it("every spelling of every secret, alone (the shortest text holding it), is redacted", () => {
    const r = new Redactor();
    for (const secret of SECRETS) r.add(secret);
    for (const secret of SECRETS)
      for (const spelled of spellings(secret)) {
        const out = r.redact(spelled);
        expect(out, JSON.stringify(spelled)).toContain(REDACTED);
        expectNoSecret(out, secret, JSON.stringify(spelled));
      }
  });

  it("every shape at its shortest is redacted, one character less is no shape", () => {
    const r = new Redactor();
    const shortest = [
      "sk-abcdefghijklmnop",
      "Bearer abcdefghijklmnop",
      "xoxb-1234567890",
      "ghp_abcdefghijklmnopqrst",
      "AKIAABCDEFGHIJKLMNOP",
    ];
    for (const shape of shortest) {
      expect(shape.length).toBeGreaterThanOrEqual(SHAPE_SHORTEST);
      expect(r.redact(shape)).toBe(REDACTED);
      expect(r.redact(shape.slice(0, -1))).toBe(shape.slice(0, -1));
    }
  });

  it("a secret in every key and value of a loom record: none in the redacting JSONL loom", () => {
    const r = new Redactor();
    for (const secret of SECRETS) r.add(secret);
    const file = join(mkdtempSync(join(tmpdir(), "redact-shortest-")), "loom.jsonl");
    const store = new JsonlStore(file, { redact: (t) => r.redact(t) });
    for (const secret of SECRETS)
      for (const spelled of spellings(secret)) {
        const turn = {
          id: "turn_1",
          parent_id: null,
          cantrip_id: "cantrip_1",
          entity_id: "ent_1",
          sequence: 1,
          utterance: spelled,
          observation: `seen: ${spelled}`,
          gate_calls: [
            {
              gate_name: "echo",
              arguments: JSON.stringify({ [spelled]: spelled }),
              result: { [spelled]: [spelled, { deep: spelled }] },
              is_error: false,
            },
          ],
          metadata: { [spelled]: spelled, nested: { [spelled]: { [spelled]: spelled } } },
          reward: null,
          terminated: false,
          truncated: false,
          reason: null,
        } as unknown as Turn;
        store.appendTurn(turn);
        const copy = redactDeep(turn, (t) => r.redact(t));
        expectNoSecret(JSON.stringify(copy), secret, `redactDeep of ${JSON.stringify(spelled)}`);
      }
    store.close();
    const written = readFileSync(file, "utf8");
    expect(written).toContain(REDACTED);
    for (const secret of SECRETS) expectNoSecret(written, secret, "the JSONL loom");
  });
});
