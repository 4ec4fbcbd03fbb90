// `spell eval` across runs and interruptions: Ctrl-C mid-run (SIGINT to the spawned CLI),
// --compare with one planted regression, --record then --replay with no server at all.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envFor, evalFolder, runCli, THREE_CASES, wireServersPerTest } from "./support/harness.js";

const start = wireServersPerTest();

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
const summaryOf = (out: string) =>
  JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
    done: number;
    total: number;
    interrupted: boolean;
    groups: Record<string, unknown>[];
  };

describe("spell eval across runs", { timeout: 120_000 }, () => {
  it("Ctrl-C stops new casts, lets running ones finish, and still writes the report", async () => {
    const server = await start({ delayMs: 400 });
    const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 20"));
    const out = join(dir, "out");
    const r = await runCli(
      ["eval", "eval.yaml", "--out", "out", "--concurrency", "2"],
      envFor(server),
      dir,
      (child) => {
        // Once a first cast has been written, interrupt.
        const poll = setInterval(() => {
          if (lines(join(out, "results.jsonl")).length >= 1) {
            clearInterval(poll);
            child.kill("SIGINT");
          }
        }, 50);
        child.on("close", () => clearInterval(poll));
      },
    );
    const s = summaryOf(out);
    expect(s.interrupted).toBe(true);
    expect(s.done).toBeGreaterThanOrEqual(1);
    expect(s.done).toBeLessThan(s.total);
    // Every cast that started finished: as many rows as requests the server answered.
    expect(lines(join(out, "results.jsonl"))).toHaveLength(s.done);
    expect((await server.stats()).requests).toBe(s.done);
    expect(r.stderr).toContain(`interrupted: ${s.done} of 60 casts ran`);
    expect(existsSync(join(out, "junit.xml"))).toBe(true);
  });

  it("--compare lists the one planted regression and exits 1", async () => {
    const good = await start({});
    const dir = evalFolder(THREE_CASES);
    expect((await runCli(["eval", "eval.yaml", "--out", "before"], envFor(good), dir)).code).toBe(
      0,
    );
    const worse = await start({ correct: { "What is 2 + 2?": 1 } });
    const r = await runCli(
      ["eval", "eval.yaml", "--out", "after", "--compare", "before"],
      envFor(worse),
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("regressed: adder.yaml × openai/wire-model: B 100% → 25%");
    expect(r.stdout.match(/regressed:/g)).toHaveLength(1);
    // How to see both in the viewer: the folder holding both, and the runs' names there.
    expect(r.stderr).toContain(
      'side by side: spell view ., open after, then "Compare with: before"',
    );
    const same = await start({});
    const again = await runCli(
      ["eval", "eval.yaml", "--out", "again", "--compare", "before"],
      envFor(same),
      dir,
    );
    expect(again.stdout).toContain("no case changed");
    expect(again.code).toBe(0);
  });

  it("--record then --replay runs offline; a repeat with no recording of its own errors", async () => {
    const server = await start({ correct: { "What is 2 + 2?": 2 } });
    const dir = evalFolder(THREE_CASES);
    const recorded = await runCli(
      ["eval", "eval.yaml", "--out", "rec", "--record"],
      envFor(server),
      dir,
    );
    expect(recorded.code).toBe(0);
    await server.close();
    // No server: the base URL points at a closed port.
    const env = envFor({ url: `http://127.0.0.1:${server.port}` });
    const r = await runCli(["eval", "eval.yaml", "--out", "rep", "--replay", "rec"], env, dir);
    expect(r.code).toBe(0);
    const before = summaryOf(join(dir, "rec")).groups[0]!;
    const after = summaryOf(join(dir, "rep")).groups[0]!;
    expect(after).toMatchObject({ passed: before["passed"], failed: before["failed"], errored: 0 });
    expect(after["passed"]).toBe(10);
    // More repeats than were recorded: the extra ones are never served another repeat's replies.
    const more = await runCli(
      ["eval", "eval.yaml", "--out", "more", "--replay", "rec", "--repeat", "5"],
      env,
      dir,
    );
    const g = summaryOf(join(dir, "more")).groups[0]!;
    expect(g).toMatchObject({ passed: 10, errored: 3 });
    expect(readFileSync(join(dir, "more", "results.jsonl"), "utf8")).toContain(
      "no recorded replies",
    );
    expect(more.code).toBe(4);
  });
});
