/**
 * What a newcomer meets when a first spell goes wrong: `spell run --json` still prints its JSON
 * object when the cast fails, `--llm` without a model names the flag (not the spell's line), a
 * scripted llm with no replies says where they go, `spell eval`'s progress line never says
 * `$0` for a cost it does not know, and a run whose casts errored says why (the first one's reason).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { evalProgress } from "../../src/cli/eval-progress.js";
import { Tally, type ResultRow } from "../../src/eval/summary.js";
import { io } from "../support/io.js";
import { needs, notBuilt } from "../support/needs.js";

const dir = mkdtempSync(join(tmpdir(), "newcomer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spell = (name: string, llm: string): string => {
  const file = join(dir, name);
  writeFileSync(
    file,
    `name: ${name.replace(".yaml", "")}\n${llm}\nidentity: { system_prompt: hi }\ncircle:\n  gates: [done]\n  wards: [{ max_turns: 3 }]\nintent: hi\n`,
  );
  return file;
};

describe("spell run --json on a cast that fails", () => {
  it("prints the documented JSON object (status failed, error) on stdout, as for any other ending", async () => {
    const file = spell(
      "provider-down.yaml",
      "llm:\n  provider: scripted\n  responses: [{ error: { status: 500, message: down } }]",
    );
    const o = io();
    const code = await runCommand(file, { json: true, loom: join(dir, "a.jsonl") }, o);
    expect(code).toBe(EXIT.failure);
    const json = JSON.parse(o.out) as {
      status: string;
      error: { code: string; message: string };
      resume?: string;
    };
    expect(json.status).toBe("failed");
    expect(json.error.code).toBe("provider_error");
    expect(json.resume).toMatch(/--resume ent_/);
  });
});

describe("spell run with a scripted llm that lists no replies", () => {
  it("says where the replies are written", async () => {
    const file = spell("no-replies.yaml", "llm: scripted");
    const o = io();
    expect(await runCommand(file, { loom: "memory" }, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/lists no responses/);
    expect(o.err).toMatch(/llm\.responses/);
    expect(o.err).toMatch(/--llm/);
  });
});

describe("spell run --llm PROVIDER without a model", () => {
  it("names the flag and the shape it needs, not the spell's llm line", async () => {
    const file = spell("flag-model.yaml", "llm: { provider: scripted, responses: [] }");
    const o = io();
    expect(await runCommand(file, { llm: "openai", loom: "memory" }, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/^--llm openai: /);
    expect(o.err).toMatch(/--llm openai\/gpt-4\.1/);
    expect(o.err).not.toMatch(/flag-model\.yaml:\d+/);
  });
});

describe("spell eval's progress line", () => {
  const row = (cost: number | null): ResultRow => ({
    spell: "s.yaml",
    llm: "scripted/default",
    case: "c",
    repeat: 0,
    status: "pass",
    score: 1,
    reason: "",
    cast_status: "terminated",
    cast_reason: "done",
    turns: 1,
    tokens: 0,
    cost_usd: cost,
    latency_ms: 1,
    entity_id: null,
    last_turn_id: null,
    location: "memory",
  });

  it("says the cost is unknown when a cast's price was (as the summary does), never $0", async () => {
    const tally = new Tally();
    tally.add(row(null), 0);
    tally.add(row(0.5), 0);
    let line = "";
    const progress = await evalProgress(false, (t) => (line += t));
    progress.stop(tally, 2);
    expect(line).toMatch(/cost unknown/);
    expect(line).not.toMatch(/\$0\b/);
  });

  it("prints the sum when every cast had a price", async () => {
    const tally = new Tally();
    tally.add(row(0.25), 0);
    tally.add(row(0.5), 0);
    let line = "";
    const progress = await evalProgress(false, (t) => (line += t));
    progress.stop(tally, 2);
    expect(line).toMatch(/\$0\.750/);
  });
});

describe("spell loom --help", () => {
  it("the loom topic's description names every loom command", async () => {
    const { COMMANDS } = await import("../../src/commands/main.js");
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      oclif: { topics: { loom: { description: string } } };
    };
    const loom = Object.keys(COMMANDS)
      .filter((id) => id.startsWith("loom:"))
      .map((id) => id.replace(":", " "));
    expect(loom.length).toBeGreaterThan(5);
    for (const command of loom) expect(pkg.oclif.topics.loom.description).toContain(`(${command})`);
  });
});

describe("spell acp --check", () => {
  it("names the spell's provider and model, not a wrapper class", async () => {
    const { acpCommand } = await import("../../src/cli/acp.js");
    const file = spell(
      "acp-check.yaml",
      "llm: { provider: local, model: qwen3, base_url: 'http://127.0.0.1:9/v1' }",
    );
    const o = io();
    const streams = { input: process.stdin, output: process.stdout, stop: new Promise(() => {}) };
    expect(await acpCommand(file, { check: true, loom: "memory" }, o, streams)).toBe(EXIT.ok);
    expect(o.err).toMatch(/ready — llm local\/qwen3,/);
    expect(o.err).not.toMatch(/PricedLLM/);
  });
});

describe("spell test with a misspelt expectation", () => {
  it("says which expectation was meant", async () => {
    const { testCommand } = await import("../../src/cli/test.js");
    const file = join(dir, "typo-test.yaml");
    writeFileSync(
      file,
      [
        "name: typo-test",
        "llm: { provider: scripted, responses: [{ content: '4' }] }",
        "identity: { system_prompt: hi }",
        "circle: { gates: [done], wards: [{ max_turns: 3 }] }",
        "tests:",
        "  - name: typo",
        "    action: { cast: { intent: '2+2' } }",
        "    expect: { reslt: '4' }",
        "",
      ].join("\n"),
    );
    const o = io();
    expect(await testCommand([file], { reporter: "text" }, o)).toBe(EXIT.failed);
    expect(o.out).toMatch(/unsupported expectation: reslt; did you mean "result"\?/);
  });
});

describe("spell summon --json on a send that fails", () => {
  it("prints a JSON line for it too (status failed, error), so each line read has its line out, and exits 4", async () => {
    const { runSummon } = await import("../../src/cli/summon.js");
    const { Readable } = await import("node:stream");
    const file = spell(
      "summon-down.yaml",
      "llm:\n  provider: scripted\n  responses: [{ content: first }, { error: { status: 500, message: down } }]",
    );
    const o = io();
    const input = Readable.from(["one\n", "two\n"]);
    // Piped input: the session goes on after the failed send, and exits non-zero at the end.
    expect(await runSummon(file, { json: true, loom: "memory" }, { ...o, input })).toBe(
      EXIT.failure,
    );
    const out = o.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string; result: unknown; error?: { code: string } });
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ status: "terminated", result: "first" });
    expect(out[1]).toMatchObject({ status: "failed", error: { code: "provider_error" } });
  });
});

describe("spell run without its FILE", () => {
  // oclif's Run.run loads the help classes from the bundle (dist/spell.cjs).
  needs(notBuilt()).it(
    "says the FILE is missing, without oclif's note that flags must come last (--input takes one value)",
    async () => {
      const { default: Run } = await import("../../src/commands/run.js");
      const err = await Run.run([], { root: process.cwd() }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/Missing 1 required arg/);
      expect(err?.message).toMatch(/spell file \(YAML\)/);
      expect(err?.message).not.toMatch(/multiple values|provide all arguments before/);
    },
  );
});

describe("in a new project's folder, before any run", () => {
  const empty = mkdtempSync(join(tmpdir(), "newcomer-empty-"));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it("spell view says how a loom comes to be there, or how to name one", async () => {
    const { viewCommand } = await import("../../src/cli/view.js");
    const o = io();
    o.cwd = empty;
    const code = await viewCommand(undefined, {}, o, new Promise(() => {}));
    expect(code).toBe(EXIT.invalid);
    expect(o.err).toMatch(/no such loom file or folder/);
    expect(o.err).toMatch(/spell run FILE/);
    expect(o.err).toMatch(/spell view LOOM/);
  });

  it("spell test says it found nothing to test, and where it looked", async () => {
    const { testCommand } = await import("../../src/cli/test.js");
    const o = io();
    o.cwd = empty;
    expect(await testCommand([], { reporter: "text" }, o)).toBe(EXIT.ok);
    expect(o.err).toMatch(/nothing to test/);
    expect(o.err).toMatch(/tests\.yaml/);
    expect(o.err).toMatch(/spell test FILE/);
  });
});

describe("spell run --resume of a cast that had ended", () => {
  it("gives back the recorded result without warning of replies left unused (no reply was asked for)", async () => {
    const file = spell(
      "ended.yaml",
      "llm:\n  provider: scripted\n  responses: [{ tool_calls: [{ gate: done, args: { answer: '7' } }] }]",
    );
    const loom = join(dir, "ended.jsonl");
    const first = io();
    expect(await runCommand(file, { loom }, first)).toBe(EXIT.ok);
    expect(first.err).not.toMatch(/left unused/);
    const again = io();
    expect(await runCommand(file, { loom, resume: "last" }, again)).toBe(EXIT.ok);
    expect(again.out).toBe("7\n");
    expect(again.err).not.toMatch(/left unused/);
  });
});

describe("spell run --repeat on a spell whose script covers one cast", () => {
  it("says why the other casts errored, not only how many (the reason was only in results.jsonl)", async () => {
    const file = spell(
      "one-cast.yaml",
      "llm:\n  provider: scripted\n  responses: [{ tool_calls: [{ gate: done, args: { answer: '5' } }] }]",
    );
    const o = io();
    o.cwd = dir;
    const out = join(dir, "repeat-report");
    expect(await runCommand(file, { repeat: 3, concurrency: 1, out }, o)).toBe(EXIT.failure);
    expect(o.err).toMatch(/2 cast\(s\) errored/);
    expect(o.err).toMatch(
      /the first: one-cast\.yaml × scripted\/default, case intent: scripted llm .* has no response left .*add replies under llm\.responses, or cycle: true/,
    );
    expect(o.err).toMatch(/every cast's reason: \S*repeat-report\/results\.jsonl\)/);
  });
});

describe("spell test on a spell that does not load", () => {
  it("names the file once (the error's own file:line:col), and the closing count says a file could not run", async () => {
    const { testCommand } = await import("../../src/cli/test.js");
    const file = join(dir, "rootless.yaml");
    writeFileSync(
      file,
      "name: rootless\nllm: scripted\ncircle:\n  gates: [done, { read: { root: data } }]\n  wards: [{ max_turns: 3 }]\ntests:\n  - { name: t, action: { cast: { intent: hi } }, expect: { terminated: true } }\n",
    );
    const o = io();
    o.cwd = dir;
    expect(await testCommand(["rootless.yaml"], { reporter: "text" }, o)).toBe(EXIT.failed);
    expect(o.err).toMatch(
      /^\S*rootless\.yaml:4:\d+: gate root "\S+data" does not exist: make the folder/m,
    );
    expect(o.err).not.toMatch(/rootless\.yaml: \S*rootless\.yaml/);
    expect(o.out).toMatch(/0 passed, 0 failed, 0 skipped, 1 file\(s\) could not run/);
  });
});
