// Issue 40 (night): every exit that writes a value as JSON redacts each of its strings before it
// is encoded, then the text (core/redact-stream.ts `redactedJson`). A secret with `"` and `\`
// held as JSON quoted three times is quoted four times once the exit encodes it: redacting the
// text alone sent it. Each test here failed before its exit was fixed. Fake secrets only.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { decidingFields } from "../../src/cli/approver.js";
import { evalCommand } from "../../src/cli/eval.js";
import { flowCommand } from "../../src/cli/flow-run.js";
import { EXIT } from "../../src/cli/io.js";
import { loomForkCommand } from "../../src/cli/loom-fork.js";
import { loomStatsCommand } from "../../src/cli/loom-tools.js";
import { runCommand } from "../../src/cli/run.js";
import { Redactor } from "../../src/core/redact.js";
import { redactedJson } from "../../src/core/redact-stream.js";
import { contentValue } from "../../src/otel/attributes.js";
import { redactedJson as servedJson } from "../../src/protocols/redact-out.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import { triageJson } from "../council/helpers.js";
import { io } from "../support/io.js";
import { SECRET, SHAPED, expectNoSecret, quoted } from "../support/exit-secrets.js";

const dir = mkdtempSync(join(tmpdir(), "redact-exits-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const env = { SPELL_SECRET: SECRET };
/** What a model answers: the secret quoted three times, a shaped key after a newline. */
const ANSWER = { deep: quoted(3), shaped: SHAPED };

/** A cantrip whose scripted model answers `answer` through `done`; it names the secret. */
const cantripSpell = (name: string, answer: unknown = ANSWER) =>
  write(
    name,
    JSON.stringify({
      llm: {
        provider: "scripted",
        responses: [{ tool_calls: [{ gate: "done", args: { answer } }] }],
      },
      identity: { system_prompt: "key: ${env:SPELL_SECRET}" },
      circle: { gates: ["done"], wards: [{ max_turns: 2 }] },
      intent: "go",
    }),
  );

describe("the one JSON encoding of every exit", () => {
  const r = new Redactor();
  r.add(SECRET);
  const redact = (t: string) => r.redact(t);

  it("redacts each string before encoding, then the text; the served one is the same", () => {
    const value = { a: ANSWER, [quoted(3)]: [quoted(3), 1, null], nested: { x: SHAPED } };
    expect(redact(JSON.stringify(value))).toContain("with space"); // the text alone: not enough
    for (const space of [undefined, 2]) expectNoSecret(redactedJson(value, redact, space), "json");
    expect(servedJson).toBe(redactedJson);
    const parsed = JSON.parse(redactedJson(value, redact)) as { a: { deep: string } };
    expect(parsed.a.deep).toContain("[REDACTED]");
    expect(redactedJson(undefined, redact)).toBeUndefined();
  });

  it("an OpenTelemetry content attribute (an object as its JSON)", () => {
    expectNoSecret(contentValue(ANSWER, redact), "otel content");
    expect(contentValue("plain", redact)).toBe("plain");
  });

  it("an approval prompt's deciding fields (a value that is no string)", () => {
    const request = { arguments: JSON.stringify({ url: { deep: quoted(3), shaped: SHAPED } }) };
    // (The arguments in full are the model's own text, printed as it wrote them.)
    expectNoSecret(decidingFields(request.arguments, redact).flat().join("\n"), "fields");
  });
});

describe("spell run and loom fork write no secret (issue 40, night)", () => {
  it("spell run --json and spell run's printed object result", async () => {
    const spell = cantripSpell("run.json");
    const json = io(env);
    expect(await runCommand(spell, { json: true, loom: "memory" }, json)).toBe(EXIT.ok);
    expectNoSecret(json.out + json.err, "run --json");
    expect((JSON.parse(json.out) as { result: { deep: string } }).result.deep).toContain(
      "[REDACTED]",
    );
    const printed = io(env);
    expect(await runCommand(spell, { loom: "memory" }, printed)).toBe(EXIT.ok);
    expectNoSecret(printed.out + printed.err, "run");
    expect(printed.out).toContain("[REDACTED]");
  });

  it("spell run --json of a kind: query document", async () => {
    const spell = write(
      "query.json",
      JSON.stringify({
        kind: "query",
        llm: { provider: "scripted", responses: [{ content: `${quoted(3)} ${SHAPED}` }] },
        messages: [{ role: "user", content: "key ${env:SPELL_SECRET}" }],
      }),
    );
    const o = io(env);
    expect(await runCommand(spell, { json: true }, o)).toBe(EXIT.ok);
    expectNoSecret(o.out + o.err, "query --json");
    expect(o.out).toContain("[REDACTED]");
  });

  it("spell loom fork --json and its line", async () => {
    const spell = cantripSpell("forked.json");
    const loom = join(dir, "fork.jsonl");
    expect(await runCommand(spell, { loom, quiet: true }, io(env))).toBe(EXIT.ok);
    const turn = readLoomFile(loom).records.find((x) => x.type === "turn")!;
    for (const json of [true, false]) {
      const o = io(env);
      const flags = { turn: turn.id, spell, json, quiet: true };
      expect(await loomForkCommand(loom, flags, o)).toBe(EXIT.ok);
      expectNoSecret(o.out + o.err, `loom fork ${json ? "--json" : ""}`);
      expect(o.out).toContain("[REDACTED]");
    }
  });
});

describe("spell loom stats shows no piece of a key (issue 40, night)", () => {
  it("an intent is redacted before it is cut to 40 characters", async () => {
    const intent = "please use this key: sk-abcdefghijklmnopqrstuvwx";
    const lines = readFileSync("tests/fixtures/loom-v3.jsonl", "utf8").split("\n");
    const turn = JSON.parse(lines[2]!) as { metadata: Record<string, unknown> };
    turn.metadata["intent"] = intent; // a loom written unredacted (an old or foreign writer)
    const loom = write(
      "stats.jsonl",
      [lines[0], lines[1], JSON.stringify(turn), ...lines.slice(3)].join("\n"),
    );
    const o = io();
    expect(await loomStatsCommand(loom, { json: false }, o), o.err).toBe(EXIT.ok);
    expect(o.out).toContain("please use this key: [REDACTED]");
    expect(o.out).not.toContain("sk-abcdefgh");
  });
});

describe("council and flow runs write no secret (issue 40, night)", () => {
  it("a kind: council document's --json", async () => {
    const simple = triageJson({ complexity: "simple", short_circuit_allowed: true });
    const file = write(
      "council.json",
      JSON.stringify({
        kind: "council",
        intent: "key ${env:SPELL_SECRET}",
        llm: { provider: "scripted", responses: [{ content: `${quoted(3)} ${SHAPED}` }] },
        triage: { output: simple },
      }),
    );
    const o = io(env);
    expect(await runCommand(file, { json: true, loom: "memory" }, o), o.err).toBe(EXIT.ok);
    expectNoSecret(o.out + o.err, "council --json");
    expect(o.out).toContain("[REDACTED]");
  });

  it("a kind: flow document's emitted payloads (JSONL)", async () => {
    const file = write(
      "flow.json",
      JSON.stringify({
        kind: "flow",
        name: "leak",
        description: "key ${env:SPELL_SECRET}",
        tape: { shape: "index-many", initial: { alice: ["idle"] }, entry_key: "alice" },
        receivers: [{ route: "idle", priority: [1], js: "stay()" }],
        senders: [{ route: "idle", on: { actions: ["stay"] }, message: ANSWER }],
      }),
    );
    const o = io(env);
    const stdin = Readable.from(['{"text":"hi"}\n']);
    expect(await flowCommand(file, { loom: "memory" }, o, stdin)).toBe(EXIT.ok);
    expectNoSecret(o.out + o.err, "flow");
    expect(o.out).toContain("[REDACTED]");
  });
});

describe("spell eval's files and lines hold no secret (issue 40, night)", () => {
  it("results.jsonl, replies.jsonl, summary.json, junit.xml, stdout and stderr", async () => {
    const folder = mkdtempSync(join(tmpdir(), "redact-eval-"));
    const answer = { deep: quoted(2), shaped: SHAPED };
    writeFileSync(join(folder, "echo.json"), readFileSync(cantripSpell("eval-spell.json", answer)));
    writeFileSync(
      join(folder, "eval.yaml"),
      `kind: eval\nname: leak\nspells: [./echo.json]\ncases:\n  - { name: c, intent: go, expect: [{ result: "no" }] }\nrepeat: 1\n`,
    );
    const o = io(env);
    const flags = { out: join(folder, "out"), record: true };
    expect(await evalCommand(join(folder, "eval.yaml"), flags, o), o.err).toBe(EXIT.failed);
    const file = (name: string) => readFileSync(join(folder, "out", name), "utf8");
    // The row's reason quotes the result (as JSON: the secret quoted three times).
    const row = JSON.parse(file("results.jsonl")) as { reason: string };
    expect(row.reason).toContain("[REDACTED]");
    for (const name of ["results.jsonl", "replies.jsonl", "summary.json", "junit.xml"])
      expectNoSecret(file(name), name);
    expectNoSecret(o.out + o.err, "eval's output");
  });
});
