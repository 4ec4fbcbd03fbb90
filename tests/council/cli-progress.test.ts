/**
 * What `spell run` and `spell council` say while a council runs: progress per call, retry waits,
 * the judge's warning, the failing seat and the loops it completed; Ctrl-C ends one query; --llm
 * sets every role; the offline example survives a demonstration of several queries.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { councilChat } from "../../src/cli/council-chat.js";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { startLoopbackProvider, type LoopbackReply } from "../../src/llm/index.js";
import { io } from "../support/io.js";
import { triageJson } from "./helpers.js";
import { needs, notBuilt } from "../support/needs.js";

async function* linesOf(...lines: string[]) {
  for (const l of lines) yield await Promise.resolve(l);
}

const SPELL = "spells/council.yaml";
const dir = mkdtempSync(join(tmpdir(), "council-progress-"));
const triage = (over: Record<string, unknown> = {}) => JSON.stringify(triageJson(over));

/** A council document with a fixed triage (2 seats + red team) and the given default LLM. */
function councilFile(name: string, llm: string, extra = ""): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `kind: council\nintent: q\nllm: ${llm}\ntriage: { output: ${triage({ loop_count: 3 })} }\nred_team: { llm: { provider: scripted, responses: [{ content: R1 }, { content: R2 }, { content: R3 }] } }\nsynthesizer: { llm: { provider: scripted, responses: [{ content: FINAL }] } }\n${extra}`,
  );
  return file;
}

describe("spell run on a council", () => {
  it("shows each seat's call start and answer, with timing, on stderr", async () => {
    const o = io();
    expect(await runCommand(SPELL, { loom: "memory" }, o)).toBe(EXIT.ok);
    for (const seat of ["domain_expert", "pragmatist", "creative"]) {
      const at = `seat, loop 1, seat ${seat}, position`;
      const started = o.err.indexOf(`${at}: started (scripted)`);
      const answered = o.err.search(new RegExp(`${at}: answered in \\d+ ms`));
      expect(started, o.err).toBeGreaterThanOrEqual(0);
      expect(answered).toBeGreaterThan(started);
    }
    expect(o.err).toMatch(/judge, loop 2: answered in \d+ ms/);
    expect(o.err.trimEnd().split("\n").at(-1)).toBe(
      "[Processing... 2 loops executed] · early exit · loom memory",
    );
    const quiet = io();
    await runCommand(SPELL, { loom: "memory", quiet: true }, quiet);
    expect(quiet.err).toBe("");
  });

  it("names the failing seat and phase, and prints the loops completed before it", async () => {
    const file = councilFile(
      "fails.yaml",
      "{ provider: scripted, responses: [{ content: S1 }, { content: S2 }, { content: S3 }, { error: { status: 400, message: refused } }] }",
    );
    const o = io();
    expect(await runCommand(file, { loom: "memory" }, o)).toBe(EXIT.failure);
    expect(o.err).toContain("seat, loop 2, seat pragmatist, position: failed after");
    expect(o.err).toContain(
      "spell run failed: seat, loop 2, seat pragmatist, position (scripted): refused",
    );
    expect(o.out).toContain("Loop 1 (completed before the failure)");
    expect(o.out).toContain("[domain_expert]\nS1");
    expect(o.out).toContain("[red team]\nR1");
    const json = io();
    await runCommand(file, { loom: "memory", json: true }, json);
    expect(JSON.parse(json.out)).toMatchObject({
      error: { code: "provider_error" },
      completed_loops: [
        {
          loop_number: 1,
          council_responses: { domain_expert: "S1", pragmatist: "S2" },
          red_team_critique: "R1",
        },
      ],
    });
  });

  it("a judge that answers neither YES nor NO is a warning on stderr, not a failure", async () => {
    const file = join(dir, "judge.yaml");
    writeFileSync(
      file,
      readFileSync(SPELL, "utf8").replace(
        '- content: "NO" #',
        '- content: "Maybe"\n      - content: "I would say so" #',
      ),
    );
    const o = io();
    expect(await runCommand(file, { loom: "memory", json: true }, o)).toBe(EXIT.ok);
    expect(o.err).toContain(
      'warning: the delta judge (scripted) answered neither YES nor NO in loop 2 (asked 2 times); counted as a change; it answered "I would say so"',
    );
    expect(JSON.parse(o.out)).toMatchObject({ loops_executed: 3, early_exit: false });
  });
});

describe("spell council FILE", () => {
  it("the offline example answers a whole demonstration: three queries, no error", async () => {
    const o = io();
    const code = await councilChat(SPELL, { loom: "memory" }, o, linesOf("one?", "two?", "three?"));
    expect(code).toBe(EXIT.ok);
    expect(o.out.match(/\[Processing\.\.\. 2 loops executed\]/g)).toHaveLength(3);
    expect(o.out.match(/Run a six-month pilot/g)).toHaveLength(3);
    expect(o.out).not.toContain("error:");
  });

  it("shows retry waits and progress on stderr", async () => {
    const file = councilFile(
      "retry.yaml",
      "{ provider: scripted, retry: { max_retries: 1, base_delay_ms: 0 }, responses: [{ error: { status: 503, message: busy } }, { content: S1 }, { content: S2 }, { content: S3 }, { content: S4 }, { content: S5 }, { content: S6 }] }",
    );
    const o = io();
    await councilChat(file, { loom: "memory" }, o, linesOf("q"));
    expect(o.err).toMatch(/warning: .*busy.* retrying in 0\.0 s \(attempt 2\)/);
    expect(o.err).toContain("seat, loop 1, seat domain_expert, position: started");
    expect(o.out).toContain("FINAL");
  });

  it("Ctrl-C ends the running query, not the session", async () => {
    let interrupt: (() => void) | undefined;
    const interrupts = {
      on: (h: () => void) => void (interrupt = h),
      off: () => void (interrupt = undefined),
    };
    const o = io();
    let first = true;
    const stderr = o.stderr;
    // The first query is interrupted the moment its first call starts.
    o.stderr = (t) => {
      stderr(t);
      if (first && t.includes("started")) {
        first = false;
        interrupt?.();
      }
    };
    const code = await councilChat(
      SPELL,
      { loom: "memory" },
      o,
      linesOf("one?", "two?"),
      interrupts,
    );
    expect(code).toBe(EXIT.ok);
    expect(o.out).toContain("interrupted");
    expect(o.out.match(/Run a six-month pilot/g)).toHaveLength(1); // the second query ran whole
  });

  it("--llm sets every role at once", async () => {
    const fixture = new URL("../fixtures/council/openrouter-council.json", import.meta.url);
    const server = await startLoopbackProvider(
      JSON.parse(readFileSync(fixture, "utf8")) as LoopbackReply[],
    );
    try {
      const o = io();
      o.env = {
        OPENROUTER_API_KEY: "sk-or-v1-loopback",
        OPENROUTER_BASE_URL: `${server.url}/api/v1`,
      };
      await councilChat(SPELL, { loom: "memory", llm: "openrouter/auto" }, o, linesOf("Rewrite?"));
      const models = server.requests.map((r) => (r.body as { model: string }).model);
      expect(models[0]).toBe("openrouter/auto"); // triage: not the document's scripted LLM
      expect(o.out).toContain("Don't rewrite");
      expect(o.out).not.toContain("six-month pilot");
    } finally {
      await server.close();
    }
  });

  needs(notBuilt()).it(
    "through the CLI with piped stdin, the example survives three queries",
    () => {
      const r = spawnSync(process.execPath, ["bin/run.js", "council", SPELL, "--loom", "memory"], {
        input: "Should we?\nAnd for a 10-person team?\nWhat first?\nexit\n",
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.match(/Run a six-month pilot/g)).toHaveLength(3);
      expect(r.stdout).not.toContain("error:");
    },
  );
});

afterAll(() => undefined);
