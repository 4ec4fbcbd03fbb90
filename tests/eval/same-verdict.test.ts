// Issue 45, "the same verdict everywhere": which scripted reply a cast gets depends on the cast
// (where its cantrip stands, its seat — an eval's case × repeat — and its turns), never on the
// process that runs it or on what other casts asked before. One entity's sends go on where its
// last send stopped. The README's offline eval gives 5/6 (exit 0) with any concurrency and
// filter here; on two workers in tests/queue/same-verdict.test.ts.
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  ScriptedLLM,
  doneGate,
  loadSpellText,
  type ScriptedResponse,
} from "../../src/index.js";
import { endsCast } from "../../src/llm/providers/scripted.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { castOf } from "../../src/queue/job.js";
import { needs, notBuilt } from "../support/needs.js";
import { runCli } from "./support/harness.js";

const done = (answer: string): ScriptedResponse => ({
  tool_calls: [{ gate: "done", args: { answer } }],
});
const echo: ScriptedResponse = { tool_calls: [{ gate: "echo", args: { text: "x" } }] };

const cantripOf = (responses: ScriptedResponse[], cycle = false) =>
  new Cantrip({
    llm: new ScriptedLLM({ responses, cycle }),
    identity: { systemPrompt: "Answer through done." },
    circle: new Circle({
      gates: [
        doneGate(),
        {
          name: "echo",
          description: "echo",
          parameters: { type: "object", properties: {} },
          execute: () => "echoed",
        },
      ],
      wards: [{ max_turns: 4 }],
    }),
  });

describe("a scripted reply depends on the cast, not on the process", () => {
  it("a cast's seat picks its part of the script, in any order and at once", async () => {
    const cantrip = cantripOf([done("a"), done("b"), done("c")]);
    // Seats 2, 0, 1 cast at once, in that order: each gets its own part.
    const results = await Promise.all([2, 0, 1].map((seat) => cantrip.cast("q", { seat })));
    expect(results.map((r) => r.result)).toEqual(["c", "a", "b"]);
    // Again, alone: the same replies (nothing moved).
    expect((await cantrip.cast("q", { seat: 1 })).result).toBe("b");
    // Past the end of a script that does not cycle: the cast fails as the sequential one would.
    const past = await cantrip.cast("q", { seat: 3 });
    expect(past.status).toBe("failed");
  });

  it("a cast's part runs to the reply that ends it: turns go on inside it", async () => {
    const cantrip = cantripOf([echo, done("first"), echo, echo, done("second")], true);
    const second = await cantrip.cast("q", { seat: 1 });
    expect([second.result, second.turns]).toEqual(["second", 3]);
    const first = await cantrip.cast("q", { seat: 0 });
    expect([first.result, first.turns]).toEqual(["first", 2]);
    // A cycling script wraps: seat 2 is seat 0's part again.
    expect((await cantrip.cast("q", { seat: 2 })).result).toBe("first");
  });

  it("which replies end a cast's part", () => {
    expect(endsCast({ content: "42" })).toBe(true);
    expect(endsCast(done("x"))).toBe(true);
    expect(endsCast(echo)).toBe(false);
    expect(endsCast({ error: { status: 500 } })).toBe(true);
    expect(endsCast({ code: "var x = 1" })).toBe(false);
    expect(endsCast({ code: "done(String(1 + 1))" })).toBe(true);
    expect(endsCast({ command: "ls -la" })).toBe(false);
    expect(endsCast({ command: "for f in *; do echo $f; done" })).toBe(false);
    expect(endsCast({ command: 'done "the answer"' })).toBe(true);
  });

  it("a summoned entity's sends go on where its last send stopped", async () => {
    const cantrip = cantripOf([done("one"), done("two"), done("three")]);
    const entity = cantrip.summon();
    expect((await entity.send("a")).result).toBe("one");
    expect((await entity.send("b")).result).toBe("two");
    entity.dispose();
    // A cast of the cantrip starts where the cantrip stands.
    const cast = cantripOf([done("one"), done("two")]);
    expect((await cast.cast("a")).result).toBe("one");
    expect((await cast.cast("a")).result).toBe("one");
  });
});

describe("a queued job's seat", () => {
  const job = (seat: unknown) => ({
    spell: "/s.yaml",
    case: { id: "c", intent: "q", expect: [], location: "e.yaml:1:1" },
    repeat: 0,
    entityId: "ent_1",
    seat,
  });
  it("is a whole number from 0, or absent (an older enqueuer's job)", () => {
    expect(castOf(job(4)).seat).toBe(4);
    expect(castOf(job(undefined)).seat).toBeUndefined();
    expect(() => castOf(job(-1))).toThrow(/its seat is -1, not a whole number from 0/);
    expect(() => castOf(job("2"))).toThrow(/its seat is text/);
  });
});

describe("spell serve: a cast is a cast, a session goes on", () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("POST /cast twice answers as `spell run` twice; a session's sends go on", async () => {
    const loaded = await loadSpellText(
      `name: twice
llm: { provider: scripted, responses: [{ content: first }, { content: second }] }
identity: { system_prompt: Answer. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`,
      "twice.yaml",
      { loomPath: "memory" },
    );
    app = await createHttpServer(loaded, {});
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { result?: unknown; id?: string };
    };
    expect((await post("/cast", { intent: "q" })).result).toBe("first");
    expect((await post("/cast", { intent: "q" })).result).toBe("first");
    const { id } = await post("/sessions", {});
    expect((await post(`/sessions/${id}/send`, { intent: "a" })).result).toBe("first");
    expect((await post(`/sessions/${id}/send`, { intent: "b" })).result).toBe("second");
  });
});

interface Row {
  case: string;
  repeat: number;
  status: string;
}

const rowsOf = (dir: string, out: string): string[] =>
  readFileSync(join(dir, out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Row)
    .map((r) => `${r.case}#${r.repeat}:${r.status}`)
    .sort();

needs(notBuilt()).describe("the README's offline eval", { timeout: 120_000 }, () => {
  it("gives 5/6 and the same rows with any concurrency, and a filtered run the same rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "same-verdict-"));
    cpSync("spells", join(dir, "spells"), { recursive: true });
    const evalFile = "spells/arithmetic-eval.yaml";
    const one = await runCli(["eval", evalFile, "--concurrency", "1", "--out", "one"], {}, dir);
    expect(one.code, one.stderr).toBe(0);
    const six = await runCli(["eval", evalFile, "--concurrency", "6", "--out", "six"], {}, dir);
    expect(six.code, six.stderr).toBe(0);
    expect(rowsOf(dir, "six")).toEqual(rowsOf(dir, "one"));
    expect(rowsOf(dir, "one").filter((r) => r.endsWith(":pass"))).toHaveLength(5);
    expect(rowsOf(dir, "one")).toContain("three-two#0:fail");
    // A filtered run keeps each case's seats: three-two alone gives the same two rows.
    const some = await runCli(["eval", evalFile, "--filter", "three", "--out", "some"], {}, dir);
    expect(rowsOf(dir, "some")).toEqual(rowsOf(dir, "one").filter((r) => r.startsWith("three")));
    expect(some.code).toBe(1); // one of two below pass.rate 0.8
  });
});
