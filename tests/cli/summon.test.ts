import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runSummon } from "../../src/cli/summon.js";
import { readState } from "../../src/loom/entities/index.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "summon-cli-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const lines = (...l: string[]) => Readable.from(l.map((x) => `${x}\n`));
const codeSpell = (responses: string[]) =>
  `llm:
  provider: scripted
  responses:
${responses.map((r) => `    - code: ${JSON.stringify(r)}`).join("\n")}
identity: { system_prompt: keep your variables }
circle: { medium: code, gates: [done], wards: [{ max_turns: 5 }] }
`;
const entityIn = (err: string) => /summoned entity (ent_[\w-]+)/.exec(err)?.[1];
const bin = (args: string[], input: string) =>
  spawnSync(process.execPath, ["bin/run.js", "summon", ...args], { input, encoding: "utf8" });

describe("spell summon (runSummon)", () => {
  it("sends each piped line to one entity; results on stdout, progress and the entity id on stderr", async () => {
    const spell = write(
      "talk.yaml",
      `llm: { provider: scripted, responses: [{ content: hello }, { content: again }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
    );
    const loom = join(dir, "talk.jsonl");
    const o = io();
    const code = await runSummon(spell, { loom }, { ...o, input: lines("hi", "", "  ", "more") });
    expect(code).toBe(EXIT.ok);
    expect(o.out).toBe("hello\nagain\n");
    const id = entityIn(o.err)!;
    expect(o.err).toContain(`resume: spell summon ${spell} --entity ${id} --loom ${loom}`);
    expect(o.err).toMatch(/turn 1 · no gates/);
    expect(
      o.err.match(new RegExp(`terminated \\(text\\) .* · entity ${id} · loom`, "g")),
    ).toHaveLength(2);
    expect(o.err).toContain(`session ended · entity ${id}`);
    const state = readState(loom);
    expect(state.entities[id]).toMatchObject({ sends: 2, spell });
  });

  it("a failed send is told and the session goes on; piped, the session then exits 4", async () => {
    const spell = write(
      "fails.yaml",
      `llm: { provider: scripted, responses: [{ error: { status: 400, message: bad request } }, { content: fine }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
    );
    const o = io();
    expect(await runSummon(spell, { loom: "memory" }, { ...o, input: lines("a", "b") })).toBe(4);
    expect(o.err).toMatch(/send failed: bad request/);
    expect(o.out).toBe("fine\n");
  });

  it("an unknown --entity does not start a session (exit 3)", async () => {
    const spell = write("one.yaml", codeSpell(["done(1)"]));
    const o = io();
    const code = await runSummon(
      spell,
      { loom: join(dir, "none.jsonl"), entity: "ent_nobody" },
      { ...o, input: lines("x") },
    );
    expect(code).toBe(EXIT.invalid);
    expect(o.err).toMatch(/no entity ent_nobody in loom/);
  });

  it("a second process resumes the entity: a variable set in process 1 is read in process 2", () => {
    const spell = join(dir, "vars.yaml");
    const loom = join(dir, "vars.jsonl");
    writeFileSync(spell, codeSpell(["var secret = 6 * 7; secret", "done(secret)"]));
    const one = bin([spell, "--loom", loom], "remember a number\n");
    expect(one.status).toBe(0);
    expect(one.stdout).toBe("42\n");
    const id = entityIn(one.stderr)!;
    // The same spell file, its scripted model now saying what it says in the second session.
    writeFileSync(spell, codeSpell(["done(secret + 1)"]));
    const two = bin([spell, "--loom", loom, "--entity", id], "add one\n");
    expect(two.stderr).toContain(`resumed entity ${id} (2 earlier turns)`);
    expect(two.stdout).toBe("43\n");
    expect(two.status).toBe(0);
    const turns = readFileSync(loom, "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"turn"'))
      .map((l) => JSON.parse(l) as { id: string; parent_id: string; entity_id: string });
    expect(turns.map((t) => t.entity_id)).toEqual([id, id, id]);
    expect(turns[2]!.parent_id).toBe(turns[1]!.id);
  });
});

/** An OpenAI-compatible loopback server: holds the first query until the client gives up. */
async function heldServer() {
  const bodies: { messages: { content: unknown }[]; stream?: boolean }[] = [];
  let held: (() => void) | null = null;
  const heldOnce = new Promise<void>((r) => (held = r));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(text) as (typeof bodies)[number];
      bodies.push(body);
      if (bodies.length === 1) return held!(); // never answered
      const message = { role: "assistant", content: `still here (${bodies.length})` };
      const usage = { prompt_tokens: 5, completion_tokens: 3 };
      if (body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        const chunk = (delta: unknown, finish: string | null) =>
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: finish }], usage: finish ? usage : null })}\n\n`;
        res.end(chunk(message, null) + chunk({}, "stop") + "data: [DONE]\n\n");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "c",
            object: "chat.completion",
            model: "m",
            choices: [{ index: 0, message, finish_reason: "stop" }],
            usage,
          }),
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, bodies, heldOnce, close: () => server.closeAllConnections() ?? server.close() };
}

function until(child: ChildProcessWithoutNullStreams, text: RegExp): Promise<string> {
  let err = "";
  return new Promise((resolve, reject) => {
    const look = (c: Buffer) => {
      err += c.toString();
      if (text.test(err)) {
        child.stderr.off("data", look);
        resolve(err);
      }
    };
    child.stderr.on("data", look);
    child.once("exit", () => reject(new Error(`exited before ${text}: ${err}`)));
  });
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((r) => child.once("exit", (code) => r(code)));

describe("spell summon in a terminal's place (a spawned process, SIGINT)", () => {
  it("Ctrl-C stops the current cast, not the session; the next line is answered", async () => {
    const server = await heldServer();
    const spell = write(
      "held.yaml",
      "llm: scripted\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 3 }] }\n",
    );
    const child = spawn(
      process.execPath,
      ["bin/run.js", "summon", spell, "--loom", "memory", "--llm", "local/m"],
      { env: { ...process.env, LOCAL_LLM_BASE_URL: server.url } },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    try {
      await until(child, /summoned entity/);
      child.stdin.write("first, which hangs\n");
      await server.heldOnce;
      child.kill("SIGINT");
      await until(child, /truncated \(interrupted\)/);
      child.stdin.write("second\n");
      await until(child, /terminated \(text\)/);
      child.stdin.end();
      expect(await exited(child)).toBe(0);
      // The interrupted cast says so (as spell run does), the next one answers.
      expect(out).toMatch(/^Truncated by interrupted[^\n]*\nstill here \(2\)\n$/);
      expect(JSON.stringify(server.bodies[1]!.messages)).toContain("second");
    } finally {
      child.kill();
      server.close();
    }
  });

  it("two Ctrl-C at an idle prompt end the session", async () => {
    const spell = write("idle.yaml", codeSpell(["done(1)"]));
    const child = spawn(process.execPath, ["bin/run.js", "summon", spell, "--loom", "memory"]);
    try {
      await until(child, /summoned entity/);
      child.kill("SIGINT");
      const err = await until(child, /Ctrl-C again/);
      expect(err).not.toContain("session ended");
      child.kill("SIGINT");
      expect(await exited(child)).toBe(0);
    } finally {
      child.kill();
    }
  });
});
