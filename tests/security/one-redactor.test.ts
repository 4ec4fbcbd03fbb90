import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { Redactor } from "../../src/core/redact.js";
import { StreamRedactor } from "../../src/core/redact-stream.js";
import { withoutUrlSecrets } from "../../src/loom/postgres/index.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { io } from "../support/io.js";
import { withProvider, type LoopbackReply } from "../support/providers.js";
import { SECRET } from "../support/secret-encodings.js";
import { allEncodings, binaryEncodings, expectNoSecret } from "../support/secret-decodings.js";

// Issue 38: one redactor for every sink. The base64, hex and reversed forms of a `${env:…}`
// secret passed `spell serve`'s session loom route; every sink redacts every form, short
// secrets (4–7 characters) and AWS access key ids included.

const dir = mkdtempSync(join(tmpdir(), "one-redactor-"));

/** A model that says every encoding of `secret` in its text and in its `done` answer. */
function leakingReply(secret: string, extra = ""): LoopbackReply {
  const said = Object.entries(allEncodings(secret))
    .map(([form, value]) => `${form}=${value};`)
    .join(" ");
  return {
    body: {
      id: "c",
      object: "chat.completion",
      model: "m",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: `here it is: ${said} ${extra}`,
            tool_calls: [
              {
                id: "d1",
                type: "function",
                function: {
                  name: "done",
                  arguments: JSON.stringify({ answer: `${said} ${extra}` }),
                },
              },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 5 },
    },
  };
}

const spellText = (secretVar: string) => `name: vault
llm: { provider: openai, model: m, base_url: '\${env:BASE}', api_key: sk-test-not-a-key }
identity: { system_prompt: 'The vault password is \${env:${secretVar}}.' }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
intent: open the vault
`;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** `spell serve` of the vault spell: one session, one send; its loom as the route answers it. */
async function sessionLoom(
  env: Record<string, string>,
  secretVar: string,
  loomPath: string,
): Promise<{ send: string; loom: string }> {
  const loaded = await loadSpellText(spellText(secretVar), "vault.yaml", { env, loomPath });
  const app = await createHttpServer(loaded);
  apps.push(app);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const { id } = (await (await fetch(`${url}/sessions`, { method: "POST" })).json()) as {
    id: string;
  };
  const sent = await fetch(`${url}/sessions/${id}/send`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ intent: "open the vault" }),
  });
  expect(sent.status).toBe(200);
  const loom = await fetch(`${url}/sessions/${id}/loom`);
  expect(loom.status).toBe(200);
  return { send: await sent.text(), loom: await loom.text() };
}

/** `spell run --json` of the vault spell into a loom file: its output and the file. */
async function cliRun(env: Record<string, string>, secretVar: string, name: string) {
  const spell = join(dir, `${name}.yaml`);
  writeFileSync(spell, spellText(secretVar));
  const loom = join(dir, `${name}.jsonl`);
  const out = io(env);
  expect(await runCommand(spell, { json: true, loom }, out)).toBe(EXIT.ok);
  return { output: out.out + out.err, loom: readFileSync(loom, "utf8") };
}

describe("the redactor knows the base64, hex and reversed forms of a secret", () => {
  it.each(Object.entries(binaryEncodings(SECRET)))("%s, alone and inside text", (form, value) => {
    const r = new Redactor();
    r.add(SECRET);
    for (const text of [value, `before ${value} after`, `"k":"${value}"`])
      expectNoSecret(r.redact(text), SECRET, form);
    expect(r.redact(`before ${value} after`)).toContain("[REDACTED]");
  });

  it("a stream split anywhere releases no base64, hex or reversed form", () => {
    const r = new Redactor();
    r.add(SECRET);
    const text = Object.values(binaryEncodings(SECRET)).join(" and ");
    for (const size of [1, 2, 5, 7]) {
      const s = new StreamRedactor((t) => r.redact(t), r.longest, r.longestEscaped);
      const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      expectNoSecret(
        pieces.map((p) => s.push(p)).join("") + s.flush(),
        SECRET,
        `pieces of ${size}`,
      );
    }
  });
});

describe("spell serve's session loom redacts every encoding (issue 38)", () => {
  it.each([
    ["a memory loom (the route's redaction alone)", "memory"],
    ["a loom file (redacted at rest, then by the route)", "file"],
  ])("%s", async (_name, kind) => {
    await withProvider([leakingReply(SECRET)], async (provider) => {
      const env = { MY_SECRET: SECRET, BASE: `${provider.url}/v1` };
      const loomPath = kind === "memory" ? "memory" : join(dir, `session-${Date.now()}.jsonl`);
      const { send, loom } = await sessionLoom(env, "MY_SECRET", loomPath);
      // The model really said every form, and the loom holds its turn.
      expect(loom).toContain('"gate_name":"done"');
      expect(loom).toContain("base64url=[REDACTED];");
      expect(loom).toContain("hexUpper=[REDACTED];");
      expect(loom).toContain("reversed=[REDACTED];");
      expectNoSecret(loom, SECRET, "GET /sessions/:id/loom");
      expectNoSecret(send, SECRET, "POST /sessions/:id/send");
      if (kind === "file") expectNoSecret(readFileSync(loomPath, "utf8"), SECRET, "loom file");
    });
  });

  it("spell run (the CLI) redacts the same forms with the same redactor", async () => {
    await withProvider([leakingReply(SECRET)], async (provider) => {
      const env = { MY_SECRET: SECRET, BASE: `${provider.url}/v1` };
      const { output, loom } = await cliRun(env, "MY_SECRET", "cli-forms");
      expect(output).toContain("reversed=[REDACTED];");
      expectNoSecret(output, SECRET, "spell run --json");
      expectNoSecret(loom, SECRET, "spell run's loom file");
    });
  });
});

describe("a short ${env:…} value (4–7 characters) is never printed", () => {
  // Decided (README, Secrets row): a value of 4 characters or more is a secret like any other,
  // redacted in every form, inside longer words too (over-redaction: "PIN9" hides the middle
  // of "xPIN9y"; a short value in ordinary words hides their letters). Shorter values are not
  // secrets (they would shred every text): never put a secret of 3 characters in ${env:…}.
  for (const short of ["k9Zq", "Tr0ub4d"])
    it(`${short.length} characters: in every form, in the session loom and the CLI`, async () => {
      const extra = `inside a word: x${short}y, JSON ${JSON.stringify({ short })}`;
      await withProvider([leakingReply(short, extra), leakingReply(short, extra)], async (p) => {
        const env = { PIN: short, BASE: `${p.url}/v1` };
        const served = await sessionLoom(env, "PIN", "memory");
        expect(served.loom).toContain("inside a word: x[REDACTED]y");
        expectNoSecret(served.loom, short, "session loom");
        expectNoSecret(served.send, short, "session send");
        const cli = await cliRun(env, "PIN", `short-${short.length}`);
        expectNoSecret(cli.output, short, "spell run");
        expectNoSecret(cli.loom, short, "loom file");
      });
    });

  it("a 3-character value is not a secret: printed as it is (documented)", () => {
    const r = new Redactor();
    r.add("k9Z");
    expect(r.redact("k9Z")).toBe("k9Z");
  });
});

describe("an AWS access key id (AKIA…) is redacted in the loom and the output", () => {
  // AWS's documented example key id; the shape is redacted even when no spell names it.
  const KEY = "AKIAIOSFODNN7EXAMPLE";
  const TEMP = "ASIAY34FZKBOKMUTVV7A";

  it("from the environment through ${env:…}: every form, like any secret", async () => {
    await withProvider([leakingReply(KEY)], async (provider) => {
      const env = { AWS_ACCESS_KEY_ID: KEY, BASE: `${provider.url}/v1` };
      const served = await sessionLoom(env, "AWS_ACCESS_KEY_ID", "memory");
      expectNoSecret(served.loom, KEY, "session loom");
    });
  });

  it("in a model's answer, named by no spell: by its shape, beside `_`, `=` or letters", async () => {
    const said = `key_${KEY} id=${TEMP}; aws${KEY}.`;
    const reply = leakingReply("not-this-one", said);
    await withProvider([reply, reply], async (provider) => {
      const env = { MY_SECRET: "not-this-one", BASE: `${provider.url}/v1` };
      const served = await sessionLoom(env, "MY_SECRET", "memory");
      const cli = await cliRun(env, "MY_SECRET", "aws-shape");
      const texts = { send: served.send, sessionLoom: served.loom, ...cli };
      for (const [where, text] of Object.entries(texts)) {
        expect(text, where).toContain("key_[REDACTED]");
        expect(text, where).not.toContain(KEY);
        expect(text, where).not.toContain(TEMP);
      }
    });
  });
});

describe("a PostgreSQL loom's errors go through the same redactor", () => {
  it("the URL's password, in every form a driver's message could quote it", () => {
    const password = "Pg-pass/9f3k+é";
    const url = `postgres://spell:${encodeURIComponent(password)}@127.0.0.1:1/looms`;
    const quoted = Object.values(allEncodings(password)).join(" | ");
    expectNoSecret(withoutUrlSecrets(`auth failed: ${quoted}`, url), password, "loom_db message");
    // A password too short for the redactor is still scrubbed as written.
    expect(withoutUrlSecrets("bad password abc", "postgres://u:abc@h/d")).toBe("bad password ***");
  });
});
