// `spell eval`'s verdicts, exact to the point (issue 38): a pass rate one hair below `pass.rate`
// exits 1 and one at it exits 0; a fall of exactly `pass.regression` is no regression and one a
// hair more is; junit.xml counts a case with some passing repeats as failed and stays valid XML
// with `&` and `<` in names and reasons; a judge whose query throws errors the case (never a
// pass); a cast that failed has an error status on its span. The spell is scripted (cycling
// through its replies in order, concurrency 1), so every pass rate is known exactly.
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attr, otlpReceiver } from "../otel/receiver.js";
import { runCli, wireServersPerTest, envFor, evalFolder } from "./support/harness.js";

const start = wireServersPerTest();

/** A spell answering, cast after cast, the replies in order (then again from the first). */
const scripted = (replies: string[]) => `kind: cantrip
name: echo
llm: { provider: scripted, cycle: true, responses: [${replies.map((r) => `{ content: ${JSON.stringify(r)} }`).join(", ")}] }
identity: { system_prompt: Say it. }
circle:
  gates: [done]
  wards: [{ max_turns: 1 }]
`;

/** One case over `repeat` casts of the scripted spell; 3 of every 4 replies are "3". */
const evalOf = (pass: string, name = "sum", repeat = 20) => `kind: eval
name: exact
spells: [./echo.yaml]
cases:
  - { name: ${JSON.stringify(name)}, intent: "1 + 2?", expect: [{ result: "3" }] }
repeat: ${repeat}
concurrency: 1
pass: ${pass}
`;

function folder(replies: string[], evalYaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "eval-exact-"));
  writeFileSync(join(dir, "echo.yaml"), scripted(replies));
  writeFileSync(join(dir, "eval.yaml"), evalYaml);
  return dir;
}

const groupOf = (dir: string, out: string) =>
  (
    JSON.parse(readFileSync(join(dir, out, "summary.json"), "utf8")) as {
      groups: { pass_rate: number; passed: number; failed: number }[];
    }
  ).groups[0]!;

const THREE_IN_FOUR = ["3", "3", "3", "4"];

describe("spell eval's verdicts, to the point", { timeout: 120_000 }, () => {
  it("pass.rate: 15/20 = 0.75 holds at 0.75 and fails at 0.7501 and 0.76 (exit 1)", async () => {
    for (const [rate, code] of [
      ["0.75", 0],
      ["0.7501", 1],
      ["0.76", 1],
    ] as const) {
      const dir = folder(THREE_IN_FOUR, evalOf(`{ rate: ${rate} }`));
      const r = await runCli(["eval", "eval.yaml", "--out", "out"], {}, dir);
      expect(groupOf(dir, "out")).toMatchObject({ passed: 15, failed: 5, pass_rate: 0.75 });
      expect(r.code, `pass.rate ${rate}: ${r.stderr}`).toBe(code);
      if (code) expect(r.stderr).toContain(`pass rate 0.750 is below pass.rate ${rate}`);
      else expect(r.stderr).not.toContain("is below pass.rate");
    }
  });

  it("pass.regression: a fall of exactly 0.25 is none; 0.2499 is exceeded (exit 1)", async () => {
    const dir = folder(THREE_IN_FOUR, evalOf("{ rate: 0.5, regression: 0.25 }"));
    expect((await runCli(["eval", "eval.yaml", "--out", "before"], {}, dir)).code).toBe(0);
    writeFileSync(join(dir, "echo.yaml"), scripted(["3", "4"])); // now 10/20 = 0.5
    const same = await runCli(["eval", "eval.yaml", "--out", "at", "--compare", "before"], {}, dir);
    expect(groupOf(dir, "at").pass_rate).toBe(0.5);
    expect(same.stdout).not.toContain("regressed:");
    expect(same.code, same.stderr).toBe(0);

    writeFileSync(join(dir, "eval.yaml"), evalOf("{ rate: 0.5, regression: 0.2499 }"));
    const past = await runCli(
      ["eval", "eval.yaml", "--out", "past", "--compare", "before"],
      {},
      dir,
    );
    expect(past.stdout).toContain("regressed: echo.yaml × scripted/default: sum 75% → 50%");
    expect(past.code).toBe(1);
  });

  it("--compare: a case whose every cast errored this run is errored, not gone", async () => {
    const dir = folder(["3"], evalOf("{ rate: 0 }", "sum", 2));
    expect((await runCli(["eval", "eval.yaml", "--out", "before"], {}, dir)).code).toBe(0);
    writeFileSync(
      join(dir, "echo.yaml"),
      scripted(["3"]).replace('{ content: "3" }', "{ error: { status: 500, message: down } }"),
    );
    const r = await runCli(["eval", "eval.yaml", "--out", "after", "--compare", "before"], {}, dir);
    expect(r.stdout).toContain("errored: echo.yaml × scripted/default: sum");
    expect(r.stdout).not.toContain("gone:");
    expect(r.code).toBe(4); // errored casts: no verdict
  });

  it("judge.llm takes a spell's llm forms: a scripted judge runs the judged eval offline", async () => {
    const dir = folder(["3"], "");
    writeFileSync(
      join(dir, "eval.yaml"),
      `kind: eval
name: judged
spells: [./echo.yaml]
cases:
  - name: sum
    intent: "1 + 2?"
    expect:
      - judge:
          llm:
            provider: scripted
            cycle: true
            responses:
              - { content: '{"pass": true, "score": 1, "reason": "right"}' }
              - { content: '{"pass": false, "score": 0, "reason": "wrong on purpose"}' }
          rubric: "Is {{result}} the sum asked for in {{intent}}?"
repeat: 2
concurrency: 2
pass: { rate: 0.5 }
`,
    );
    const r = await runCli(["eval", "eval.yaml", "--out", "out"], {}, dir);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(join(dir, "out/results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { repeat: number; status: string; reason: string })
      .sort((a, b) => a.repeat - b.repeat);
    // Each cast's judgement is its seat's reply, whichever judge query came first.
    expect(rows.map((x) => x.status)).toEqual(["pass", "fail"]);
    expect(rows[1]!.reason).toContain("wrong on purpose");
  });

  it("junit.xml: a case with 3 of 4 repeats passing is a failure; & and < keep it valid XML", async () => {
    const name = "A & B <x>";
    const dir = folder(["3", "3", "3", "4 & <b>"], evalOf("{ rate: 0 }", name, 4));
    const r = await runCli(["eval", "eval.yaml", "--out", "out"], {}, dir);
    expect(r.code, r.stderr).toBe(0);
    const xml = readFileSync(join(dir, "out/junit.xml"), "utf8");
    expect(xml).toMatch(/<testsuite [^>]* tests="1" failures="1" errors="0" time="[0-9.]+">/);
    // Each test case's time (its casts' wall time, in seconds), and the suite's properties.
    expect(xml).toMatch(/<testcase [^>]* time="[0-9.]+"><failure/);
    expect(xml).toContain(`<property name="k" value="4"/>`);
    expect(xml).toContain(`<property name="pass_at_k" value="1"/>`); // 3 of 4 passed
    expect(xml).toContain(`<property name="pass_hat_k" value="0"/>`);
    expect(xml).toContain(`<property name="cost_usd" value=""/>`); // no price: unknown
    expect(xml).toContain(`name="A &#38; B &#60;x&#62;"`);
    expect(xml).toContain(`<failure message="1 of 4 casts failed">`);
    expect(xml).toContain("4 &#38; &#60;b&#62;"); // the reason quotes the answer
    expect(xml).not.toMatch(/&(?!#\d+;)/); // no bare ampersand
    // A real parser's word, where python3 is installed (it is where these tests run).
    const parsed = spawnSync(
      "python3",
      [
        "-c",
        "import sys, xml.dom.minidom as m; m.parse(sys.argv[1]); print('ok')",
        join(dir, "out/junit.xml"),
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    if (parsed.error === undefined) expect(parsed.stdout.trim(), parsed.stderr).toBe("ok");
  });

  it("a judge whose query throws (its provider refuses the connection) errors the case, never passes it", async () => {
    const server = await start({});
    // A loopback port nobody listens on: taken, then given back.
    const closed = await new Promise<number>((ok) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as { port: number };
        s.close(() => ok(port));
      });
    });
    const dir = evalFolder(`kind: eval
name: judged
spells: [./adder.yaml]
cases:
  - { name: A, intent: "What is 1 + 2?", expect: [{ judge: { llm: openai/judge-model, rubric: "Is {{result}} right?" } }] }
repeat: 2
concurrency: 1
pass: { rate: 0 }
`);
    const env = {
      ...envFor(server),
      OPENAI_BASE_URL: `http://127.0.0.1:${closed}/v1`,
      OPENAI_API_KEY: "sk-test-judge-0000",
    };
    const r = await runCli(["eval", "eval.yaml", "--out", "out"], env, dir);
    const rows = readFileSync(join(dir, "out/results.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { status: string; reason: string });
    expect(rows.map((x) => x.status)).toEqual(["error", "error"]);
    expect(rows[0]!.reason).toMatch(/^judge: judge failed: /);
    expect(r.code).toBe(4); // errored: no verdict, whatever pass.rate says
  });

  it("--otel: a cast that failed (its provider died) has an error status; one that passed has none", async () => {
    const server = await start({ dieAt: 3 });
    const receiver = await otlpReceiver();
    try {
      const dir = evalFolder(`kind: eval
name: dies
spells: [./adder.yaml]
cases:
  - { name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }
repeat: 4
concurrency: 1
`);
      const r = await runCli(
        ["eval", "eval.yaml", "--out", "out", "--otel", receiver.url],
        envFor(server),
        dir,
      );
      expect(r.code).toBe(4);
      const casts = receiver.spans().filter((s) => s.name === "invoke_agent adder");
      expect(casts).toHaveLength(4);
      const failed = casts.filter((s) => s.status?.code === 2);
      expect(failed).toHaveLength(2); // the casts after the provider died
      for (const s of failed) expect(attr(s, "error.type")).toBeDefined();
      const passed = casts.filter((s) => attr(s, "gen_ai.evaluation.score.label") === "pass");
      expect(passed).toHaveLength(2);
      for (const s of passed) expect(s.status?.code ?? 0).not.toBe(2);
    } finally {
      await receiver.close();
    }
  });
});
