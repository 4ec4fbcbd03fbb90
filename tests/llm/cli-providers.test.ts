import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT, type CliIO } from "../../src/cli/io.js";
import { loomExportCommand } from "../../src/cli/loom-export.js";
import { runCommand } from "../../src/cli/run.js";
import { StreamRedactor } from "../../src/cli/stream-text.js";
import { Redactor } from "../../src/core/redact.js";
import { body, withProvider } from "../support/providers.js";

function io(
  env: Record<string, string> = {},
): CliIO & { out: string; err: string; writes: string[] } {
  const o = { out: "", err: "", writes: [] as string[], env, cwd: process.cwd() } as CliIO & {
    out: string;
    err: string;
    writes: string[];
  };
  o.stdout = (t) => void (o.out += t);
  o.stderr = (t) => {
    o.err += t;
    o.writes.push(t);
  };
  return o;
}

const dir = mkdtempSync(join(tmpdir(), "cli-providers-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** An SSE chat-completion stream whose text arrives in the given pieces (then, optionally, one tool call). */
function textStream(
  pieces: string[],
  call?: { id: string; name: string },
  usage = { prompt_tokens: 30, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 16 } },
): string {
  const chunk = (delta: unknown, finish: string | null = null, u: unknown = null) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "m", choices: u ? [] : [{ index: 0, delta, finish_reason: finish }], usage: u })}\n\n`;
  const tool = call
    ? chunk({
        tool_calls: [
          {
            index: 0,
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: "{}" },
          },
        ],
      })
    : "";
  return (
    chunk({ role: "assistant", content: "" }) +
    pieces.map((p) => chunk({ content: p })).join("") +
    tool +
    chunk({}, call ? "tool_calls" : "stop") +
    chunk({}, null, usage) +
    "data: [DONE]\n\n"
  );
}

const textSpell = (extra = "") =>
  write(
    `text-${Math.random().toString(36).slice(2)}.yaml`,
    `llm: { provider: scripted, responses: [{ content: never used }] }
identity: { system_prompt: You answer briefly. }
circle: { gates: [done], wards: [{ max_turns: 3 }] }
intent: capital of France?
${extra}`,
  );

describe("spell run --llm", () => {
  it("replaces the spell's LLM for one run; text streams to stderr as it arrives; cached tokens are counted", async () => {
    await withProvider([{ sse: textStream(["The capital", " is Paris."]) }], async (server) => {
      const o = io({ LOCAL_LLM_BASE_URL: `${server.url}/v1` });
      const code = await runCommand(textSpell(), { llm: "local/qwen3:8b", loom: "memory" }, o);
      expect(o.err).not.toContain("spell run failed");
      expect(code).toBe(EXIT.ok);
      expect(o.out).toBe("The capital is Paris.\n");
      expect(server.requests[0]!.body).toMatchObject({ model: "qwen3:8b", stream: true });
      // The text came in pieces, before the turn's progress line.
      const first = o.writes.findIndex((w) => w.includes("The capital"));
      const progress = o.writes.findIndex((w) => w.startsWith("turn 1"));
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThan(progress);
      expect(o.err).toContain(
        "The capital is Paris.\nturn 1 · no gates · 39 tokens (30 in, 9 out, 16 cached)",
      );
      expect(o.err).toMatch(
        /terminated \(text\) after 1 turn · 39 tokens \(30 in, 9 out, 16 cached\)/,
      );
    });
  });

  it("--json prints nothing but the final result, and the query is not streamed", async () => {
    await withProvider([body("openai/chat-text.json")], async (server) => {
      const o = io({ LOCAL_LLM_BASE_URL: `${server.url}/v1` });
      expect(await runCommand(textSpell(), { llm: "local/m", json: true, loom: "memory" }, o)).toBe(
        EXIT.ok,
      );
      expect(o.err).toBe("");
      expect(JSON.parse(o.out)).toMatchObject({
        result: "There are 3 files.",
        usage: { cached_tokens: 1024 },
      });
      expect(server.requests[0]!.body).not.toHaveProperty("stream");
    });
  });

  it("a missing key for --llm fails before the first turn, naming the variable", async () => {
    const o = io({});
    expect(
      await runCommand(textSpell(), { llm: "anthropic/claude-sonnet-4-5", loom: "memory" }, o),
    ).toBe(EXIT.invalid);
    expect(o.err).toContain("ANTHROPIC_API_KEY");
    expect(o.err).not.toContain("turn 1");
  });

  it("an unknown provider in --llm is a usage error", async () => {
    const o = io({});
    expect(await runCommand(textSpell(), { llm: "opneai/gpt-4.1", loom: "memory" }, o)).toBe(
      EXIT.invalid,
    );
    expect(o.err).toContain('unknown provider "opneai"');
  });

  it("a retried query is announced on stderr and stays one turn", async () => {
    await withProvider(
      [
        body("openai/error-rate-limit.json", 429, { "retry-after": "0" }),
        body("openai/chat-text.json"),
      ],
      async (server) => {
        const o = io({ LOCAL_LLM_BASE_URL: `${server.url}/v1` });
        expect(await runCommand(textSpell(), { llm: "local/m", loom: "memory" }, o)).toBe(EXIT.ok);
        expect(o.err).toContain(
          "warning: local: rate limited (HTTP 429): Rate limit reached for gpt-4.1",
        );
        expect(o.err).toContain("— retrying in 0.0 s (attempt 2)");
        expect(o.err).toMatch(/terminated \(text\) after 1 turn/);
      },
    );
  });

  it("provider warnings are printed once as warnings", async () => {
    await withProvider([body("openai/chat-text.json")], async (server) => {
      const o = io({ LOCAL_LLM_BASE_URL: `${server.url}/v1` });
      const spell = write(
        "warn.yaml",
        `llm: local/m\nidentity: { extra: { n: 2 } }\ncircle: { gates: [done], wards: [{ max_turns: 3 }] }\nintent: hi\n`,
      );
      expect(await runCommand(spell, { loom: "memory" }, o)).toBe(EXIT.ok);
      expect(o.err).toContain(
        "warning: local: n=2 is not supported (one reply per query); it was not sent\n",
      );
    });
  });
});

describe("PROD-8: a planted secret reaches no output", () => {
  const SECRET = "hunter2-planted-secret-value";
  const KEY = "sk-live-planted0123456789abcdefghij";

  it("not the progress, the result, an error message, the loom file or its export", async () => {
    const call = (id: string, name: string, args: unknown) => ({
      body: {
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id, type: "function", function: { name, arguments: JSON.stringify(args) } },
              ],
            },
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 5 },
      },
    });
    await withProvider(
      [
        // The secret split across two deltas of the streamed text.
        {
          sse: textStream(
            [
              `I will open the vault; the password is ${SECRET.slice(0, 9)}`,
              `${SECRET.slice(9)} as you said. `,
              "Calling it now.",
            ],
            { id: "c1", name: "vault" },
          ),
        },
        call("c2", "done", { answer: `opened with ${SECRET}` }),
        {
          status: 401,
          body: {
            error: {
              message: `Incorrect API key provided: ${KEY}. Also ${SECRET}.`,
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
          },
        },
      ],
      async (server) => {
        const env = { MY_SECRET: SECRET, MY_KEY: KEY, BASE: `${server.url}/v1` };
        const loom = join(dir, "secret-loom.jsonl");
        const spell = write(
          "secret.yaml",
          `llm: { provider: openai, model: gpt-4.1, base_url: '\${env:BASE}', api_key: '\${env:MY_KEY}' }
identity: { system_prompt: 'The vault password is \${env:MY_SECRET}.' }
circle:
  gates: [done, { name: vault, behavior: { result: 'vault says: \${env:MY_SECRET}' } }]
  wards: [{ max_turns: 5 }]
intent: open the vault
`,
        );
        const ok = io(env);
        expect(await runCommand(spell, { loom }, ok)).toBe(EXIT.ok);
        const failed = io(env);
        expect(await runCommand(spell, { loom: "memory" }, failed)).toBe(EXIT.failure);
        expect(failed.err).toContain("Incorrect API key provided: [REDACTED]");

        const exported = io(env);
        expect(await loomExportCommand(loom, { redact: true, spell }, exported)).toBe(EXIT.ok);
        const raw = io(env);
        expect(await loomExportCommand(loom, { redact: false }, raw)).toBe(EXIT.ok);

        // The secret really was there: in what the provider received. The loom file was
        // redacted before it was written (at rest), so even --no-redact has none to show.
        expect(JSON.stringify(server.requests[0]!.body)).toContain(SECRET);
        expect(raw.err).toContain("without redaction");
        for (const [what, text] of Object.entries({
          stdout: ok.out,
          stderr: ok.err,
          error: failed.err + failed.out,
          export: exported.out,
          "loom file": readFileSync(loom, "utf8"),
          "export --no-redact": raw.out,
        })) {
          expect(text, what).not.toContain(SECRET);
          expect(text, what).not.toContain(KEY);
          expect(text, what).not.toContain(SECRET.slice(9)); // no tail of a split secret either
        }
        expect(ok.err).toContain(
          "I will open the vault; the password is [REDACTED] as you said. Calling it now.\n",
        );
        expect(ok.out).toBe("opened with [REDACTED]\n");
        expect(exported.out).toContain("vault says: [REDACTED]");
      },
    );
  });
});

describe("StreamRedactor", () => {
  const redactor = new Redactor();
  redactor.add("correct horse battery");
  const run = (pieces: string[]) => {
    const s = new StreamRedactor((t) => redactor.redact(t), redactor.longest);
    return pieces.map((p) => s.push(p)).join("") + s.flush();
  };

  it("redacts secrets split anywhere across deltas", () => {
    const text =
      "auth: Bearer abcdefghijklmnopqrstuvwxyz012345 and key sk-abcdefghijklmnopqrstuvwx, phrase correct horse battery staple.";
    const whole = redactor.redact(text);
    for (let size = 1; size <= 12; size++) {
      const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      expect(run(pieces)).toBe(whole);
    }
    expect(whole).toBe("auth: [REDACTED] and key [REDACTED], phrase [REDACTED] staple.");
  });

  it("releases text as words complete, holding back only the last two", () => {
    const s = new StreamRedactor((t) => t);
    expect(s.push("one two three four")).toBe("one two ");
    expect(s.push(" five")).toBe("three ");
    expect(s.flush()).toBe("four five");
  });
});

describe("redactingListener: events carry no secrets (PROD-8)", () => {
  it("redacts text deltas, tool results, message contents and the final result of a real cast", async () => {
    const { redactingListener } = await import("../../src/core/redact-stream.js");
    const { loadSpellText } = await import("../../src/spell/index.js");
    const SECRET = "s3cr3t-token-from-env";
    const loaded = await loadSpellText(
      `llm:
  provider: scripted
  responses:
    - content: "the token is \${env:TOKEN}, calling the vault"
      tool_calls: [{ gate: vault, args: {} }]
    - tool_calls: [{ gate: done, args: { answer: "done with \${env:TOKEN}" } }]
identity: { system_prompt: "token \${env:TOKEN}" }
circle:
  gates: [done, { name: vault, behavior: { result: "vault: \${env:TOKEN}" } }]
  wards: [{ max_turns: 4 }]
`,
      "events.yaml",
      { env: { TOKEN: SECRET }, loomPath: "memory" },
    );
    const raw: unknown[] = [];
    const clean: unknown[] = [];
    const redacted = redactingListener((e) => clean.push(e), loaded.redactor);
    await loaded.cantrip!.cast("go", {
      onEvent: (e) => {
        raw.push(e);
        redacted(e);
      },
    });
    expect(JSON.stringify(raw)).toContain(SECRET); // the planted secret was in the events
    expect(JSON.stringify(clean)).not.toContain(SECRET);
    const types = (clean as { type: string }[]).map((e) => e.type);
    expect(types).toContain("tool_result");
    expect(types).toContain("final");
    const text = (clean as { type: string; text?: string }[])
      .filter((e) => e.type === "text")
      .map((e) => e.text)
      .join("");
    expect(text).toBe("the token is [REDACTED], calling the vault");
  });
});
