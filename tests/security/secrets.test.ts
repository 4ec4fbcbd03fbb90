import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomExportCommand } from "../../src/cli/loom-export.js";
import { runCommand } from "../../src/cli/run.js";
import { Redactor } from "../../src/core/redact.js";
import { StreamRedactor } from "../../src/core/redact-stream.js";
import { loadSpellText } from "../../src/spell/index.js";
import { io } from "../support/io.js";
import { withProvider } from "../support/providers.js";
import { SECRET, encodings, expectClean, unicodeEscaped } from "../support/secret-encodings.js";

const dir = mkdtempSync(join(tmpdir(), "secrets-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("the redactor knows every encoding of a secret", () => {
  it("redacts each form, alone and inside text", () => {
    const r = new Redactor();
    r.add(SECRET);
    for (const [form, value] of Object.entries(encodings(SECRET))) {
      const out = r.redact(`before ${value} after`);
      expect(out, form).toBe("before [REDACTED] after");
    }
  });

  it("a stream split anywhere releases no form", () => {
    const r = new Redactor();
    r.add(SECRET);
    const text = `a ${encodeURIComponent(SECRET)} b ${JSON.stringify(SECRET)} c ${unicodeEscaped(SECRET, (i) => i % 3 === 0)} d`;
    for (let size = 1; size <= 7; size++) {
      const s = new StreamRedactor((t) => r.redact(t), r.longest, r.longestEscaped);
      const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      expectClean(pieces.map((p) => s.push(p)).join("") + s.flush(), `pieces of ${size}`);
    }
  });
});

describe("${env:…} reads only the environment's own keys", () => {
  it.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    "%s is not set",
    async (name) => {
      await expect(
        loadSpellText(
          `llm: scripted\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\nintent: "\${env:${name}}"\n`,
          "own.yaml",
          { env: { ...process.env } },
        ),
      ).rejects.toThrow(`environment variable ${name} is not set`);
    },
  );
});

const spellText = `llm:
  provider: scripted
  responses:
    - content: 'I got \${env:SPELL_SECRET}'
      tool_calls: [{ gate: echo, args: { text: '\${env:SPELL_SECRET}' } }]
    - tool_calls: [{ gate: done, args: { answer: { nested: '\${env:SPELL_SECRET}', list: ['\${env:SPELL_SECRET}'] } } }]
identity: {}
circle: { gates: [done, echo], wards: [{ max_turns: 3 }] }
intent: go
tests:
  - name: fails on purpose and quotes the secret
    action: { cast: { intent: go } }
    expect: { result: nope }
`;

describe("no output of a run carries the secret in any form", () => {
  const env = { SPELL_SECRET: SECRET };

  it("spell run: printed object result, --json, and the loom export --spell", async () => {
    const spell = write("leak.yaml", spellText);
    const loom = join(dir, "leak.jsonl");
    const printed = io(env);
    expect(await runCommand(spell, { loom }, printed)).toBe(EXIT.ok);
    const json = io(env);
    expect(await runCommand(spell, { json: true, loom: "memory" }, json)).toBe(EXIT.ok);
    const exported = io(env);
    expect(await loomExportCommand(loom, { redact: true, spell }, exported)).toBe(EXIT.ok);
    // The loom file itself holds none (secrets-at-rest.test.ts): redacted before it is written.
    expectClean(readFileSync(loom, "utf8"), "the loom file");
    expectClean(printed.out + printed.err, "run");
    expectClean(json.out + json.err, "run --json");
    expectClean(exported.out + exported.err, "loom export");
    expect(JSON.parse(json.out)).toMatchObject({ result: { nested: "[REDACTED]" } });
  });

  it("a loader error quoting the value", async () => {
    const spell = write(
      "bad-value.yaml",
      `llm: scripted\nidentity: {}\ncircle: { medium: '\${env:SPELL_SECRET}', gates: [done], wards: [{ max_turns: 1 }] }\nintent: go\n`,
    );
    const o = io(env);
    expect(await runCommand(spell, {}, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/bad-value\.yaml:3:\d+: circle\.medium: unknown medium "\[REDACTED\]"/);
    expectClean(o.err, "loader error");
  });

  it("a provider error echoing the URL it was sent to", async () => {
    // A URL cannot carry `\\`, a newline, `?` or `#` of a secret as themselves (the parser
    // rewrites or splits them); every other character is checked in each percent-spelling.
    const secret = 'tok"en é<>{}|^ `x';
    const base = `/v1/${secret}`;
    const echoed = new URL(`http://h${base}/chat/completions`).pathname;
    await withProvider(
      [{ status: 404, body: { error: { message: `no route for ${echoed}`, type: "not_found" } } }],
      async (server) => {
        const spell = write(
          "provider.yaml",
          `llm: { provider: openai, model: m, base_url: '${server.url}\${env:BASE_PATH}', api_key: k-not-secret }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\nintent: go\n`,
        );
        const o = io({ BASE_PATH: base });
        expect(await runCommand(spell, { loom: "memory" }, o)).toBe(EXIT.failure);
        expect(o.err).toContain("no route for [REDACTED]/chat/completions");
        expect(echoed).toContain("%22");
        expect(o.err).not.toContain(echoed);
      },
    );
  });

  it.each(["text", "json"])("spell test failure messages (%s reporter)", (reporter) => {
    const spell = write(`test-${reporter}.yaml`, spellText);
    const r = spawnSync(process.execPath, ["bin/run.js", "test", spell, "--reporter", reporter], {
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    expect(r.status).toBe(EXIT.failed);
    expect(r.stdout).toContain("[REDACTED]");
    expectClean(r.stdout + r.stderr, `spell test --reporter ${reporter}`);
  });
});
