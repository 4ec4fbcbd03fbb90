import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomExportCommand } from "../../src/cli/loom-export.js";
import { runCommand } from "../../src/cli/run.js";
import { Redactor } from "../../src/core/redact.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import { loadSpellText } from "../../src/spell/index.js";
import { io } from "../support/io.js";
import { withProvider } from "../support/providers.js";
import { SECRET, expectClean } from "../support/secret-encodings.js";

/** PROD-8 at rest: the loom on disk never holds a known secret, and runtime objects print none. */
const dir = mkdtempSync(join(tmpdir(), "secrets-at-rest-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

// The secret reaches an utterance, a gate's arguments and result, the observation and the answer.
const spellText = `llm:
  provider: scripted
  responses:
    - content: 'I got \${env:SPELL_SECRET}'
      tool_calls: [{ gate: echo, args: { text: '\${env:SPELL_SECRET}' } }]
    - tool_calls: [{ gate: done, args: { answer: { nested: '\${env:SPELL_SECRET}', list: ['\${env:SPELL_SECRET}'] } } }]
identity: { system_prompt: 'you know \${env:SPELL_SECRET}' }
circle: { gates: [done, echo], wards: [{ max_turns: 3 }] }
intent: 'use \${env:SPELL_SECRET}'
`;

describe("the loom file holds no secret", () => {
  it("a cast's ${env:…} value, in any encoding, is redacted before it is written; mode 0600", async () => {
    const spell = write("at-rest.yaml", spellText);
    const loom = join(dir, "fresh-folder", "loom.jsonl");
    expect(await runCommand(spell, { loom }, io({ SPELL_SECRET: SECRET }))).toBe(EXIT.ok);
    const bytes = readFileSync(loom, "utf8");
    expect(bytes).toContain("[REDACTED]");
    expect(bytes).toContain('"gate_name":"echo"'); // the turns are there, only the secret is not
    expectClean(bytes, "the loom file");
    expect(statSync(loom).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "fresh-folder")).mode & 0o777).toBe(0o700);
    // A plain export (no --spell) has nothing left to leak.
    const exported = io({});
    expect(await loomExportCommand(loom, { redact: false }, exported)).toBe(EXIT.ok);
    expectClean(exported.out, "loom export --no-redact");
  });

  it("a provider key from the environment, echoed by the model, never reaches the file", async () => {
    const key = "sk-at-rest-0123456789abcdefghij";
    const said = (content: string, tool?: string) => ({
      status: 200,
      body: {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content,
              ...(tool
                ? {
                    tool_calls: [
                      { id: "t1", type: "function", function: { name: "done", arguments: tool } },
                    ],
                  }
                : {}),
            },
            finish_reason: tool ? "tool_calls" : "stop",
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
    });
    await withProvider(
      [said(`my key is ${key}`, JSON.stringify({ answer: `k=${key}` }))],
      async (server) => {
        const spell = write(
          "provider-key.yaml",
          `llm: { provider: openai, model: m, base_url: '${server.url}' }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 2 }] }\nintent: go\n`,
        );
        const loom = join(dir, "provider-key.jsonl");
        const o = io({ OPENAI_API_KEY: key });
        expect(await runCommand(spell, { loom }, o), o.err).toBe(EXIT.ok);
        const bytes = readFileSync(loom, "utf8");
        expect(bytes).toContain("my key is [REDACTED]");
        expect(bytes).not.toContain(key);
      },
    );
  });
});

describe("a loom written without redaction (an older build, a store made in code)", () => {
  it("is still redacted by spell loom export --spell", async () => {
    const spell = write("old-loom.yaml", spellText);
    const loom = join(dir, "old-loom.jsonl");
    const store = new JsonlStore(loom); // no `redact`: the file holds the secret as written
    store.append({ type: "reward", turn_id: `t ${SECRET}`, reward: 1, timestamp: "" });
    store.close();
    expect(readFileSync(loom, "utf8")).toContain(JSON.stringify(SECRET).slice(1, -1));
    const exported = io({ SPELL_SECRET: SECRET });
    expect(await loomExportCommand(loom, { redact: true, spell }, exported)).toBe(EXIT.ok);
    expect(exported.out).toContain("t [REDACTED]");
    expectClean(exported.out + exported.err, "loom export --spell");
  });

  it("a secret written into an object's key is redacted by spell loom export too", async () => {
    const spell = write("old-loom-key.yaml", spellText);
    const loom = join(dir, "old-loom-key.jsonl");
    const store = new JsonlStore(loom);
    // A model's tool arguments may carry what it saw as a key: {"<secret>": true}.
    store.append({
      type: "reward",
      turn_id: "t1",
      reward: 1,
      timestamp: "",
      args: { [SECRET]: true, nested: [{ [`k ${SECRET}`]: 1 }] },
    } as never);
    store.close();
    expect(readFileSync(loom, "utf8")).toContain(JSON.stringify(SECRET).slice(1, -1));
    const exported = io({ SPELL_SECRET: SECRET });
    expect(await loomExportCommand(loom, { redact: true, spell }, exported)).toBe(EXIT.ok);
    expect(exported.out).toContain('"[REDACTED]":true');
    expectClean(exported.out + exported.err, "loom export --spell (keys)");
  });
});

describe("runtime objects print no secret", () => {
  it("util.inspect of a cantrip (depth 10) and JSON.stringify of its LLM and redactor", async () => {
    const key = "sk-inspect-0123456789abcdefghij";
    const env = { OPENAI_API_KEY: key, SPELL_SECRET: SECRET };
    const loaded = await loadSpellText(
      `llm: { provider: openai, model: m, base_url: 'http://127.0.0.1:9/v1' }\nidentity: { system_prompt: 'you know \${env:SPELL_SECRET}' }\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\nintent: go\n`,
      join(dir, "inspect.yaml"),
      { env },
    );
    const cantrip = loaded.cantrip!;
    const printed = [
      inspect(cantrip, { depth: 6 }),
      inspect(cantrip, { depth: 10 }),
      inspect(cantrip, { depth: Infinity, colors: true }),
      inspect(loaded.redactor, { depth: 10 }),
      inspect(cantrip.llm, { depth: 10, showHidden: true }),
      JSON.stringify(cantrip.llm) ?? "",
      JSON.stringify(loaded.redactor) ?? "",
    ];
    for (const text of printed) {
      expect(text).not.toContain(key);
      expectClean(text, "inspect");
    }
    expect(printed[1]).toContain("[REDACTED]");
  });

  it("a Redactor prints how many secrets it knows, never which", () => {
    const r = new Redactor();
    r.add("hush-0123456789");
    expect(inspect(r)).not.toContain("hush");
    expect(JSON.stringify(r)).not.toContain("hush");
    expect(inspect(r)).toContain("1 secret");
  });
});
