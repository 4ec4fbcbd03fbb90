import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { initialize, testClient } from "../support/acp.js";
import { Cantrip, Circle, doneGate, JsonlStore, Loom, ScriptedLLM } from "../../src/index.js";
import { readState } from "../../src/loom/entities/index.js";

const bin = fileURLToPath(new URL("../../bin/run.js", import.meta.url));
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });

function spellFile(responses: unknown[], llm?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-stdio-"));
  const file = join(dir, "s.yaml");
  writeFileSync(
    file,
    `name: stdio-helper
llm: ${llm ?? `{ provider: scripted, responses: ${JSON.stringify(responses)} }`}
identity: { system_prompt: "Help." }
circle:
  gates: [done, echo, { name: wait, behavior: { delay_ms: 600000, result: waited } }]
  wards: [{ max_turns: 4 }]
`,
  );
  return file;
}

let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill();
  child = undefined;
});

function start(file: string, ...flags: string[]) {
  child = spawn(process.execPath, [bin, "acp", file, "--loom", "memory", ...flags]);
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}

/** Raw lines in, raw lines out: what an editor that is not the SDK would see. */
function rawSession(file: string) {
  const p = start(file);
  let out = "";
  p.child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const lines = () => out.split("\n").filter((l) => l !== "");
  const send = (line: string) => p.child.stdin.write(line + "\n");
  const parsed = () => lines().map((l) => JSON.parse(l) as Record<string, unknown>);
  /** Every message so far, once the responses to `ids` have all arrived. */
  const waitFor = async (...ids: (number | null)[]) => {
    const has = () => ids.every((id) => parsed().some((m) => m["id"] === id && !m["method"]));
    while (!has()) await new Promise((r) => setTimeout(r, 10));
    return parsed();
  };
  return { ...p, send, waitFor, lines };
}

describe("spell acp (a spawned process, over stdio)", () => {
  it("the SDK's client runs a session: prompt, follow-up, cancel mid-gate", async () => {
    const file = spellFile([
      { content: "hello", tool_calls: [{ gate: "echo", args: { text: "e1" } }] },
      done("first"),
      done("second"),
      { tool_calls: [{ gate: "wait", args: {} }] },
    ]);
    const p = start(file);
    const client = testClient(
      ndJsonStream(
        Writable.toWeb(p.child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(p.child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
    await initialize(client);
    const { sessionId } = await client.agent.request(methods.agent.session.new, {
      cwd: tmpdir(),
      mcpServers: [],
    });
    const first = await client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "one" }],
    });
    expect(first.stopReason).toBe("end_turn");
    expect(client.message(sessionId)).toBe("hellofirst");
    expect(client.kinds(sessionId)).toContain("tool_call_update");
    const second = await client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "two" }],
    });
    expect(second._meta).toMatchObject({ spellbook: { result: "second" } });
    const waiting = client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    const calls = () => client.kinds(sessionId).filter((k) => k === "tool_call").length;
    while (calls() < 3) await new Promise((r) => setTimeout(r, 10));
    await client.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await waiting).stopReason).toBe("cancelled");
    client.connection.close();
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    expect(p.stderr()).toContain("waiting for an ACP client");
  });

  it("stdout is protocol only: malformed lines, requests before initialize, unknown methods", async () => {
    const s = rawSession(spellFile([done("ok")]));
    s.send('{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
    s.send("this is not json");
    let got = await s.waitFor(1, null);
    expect(got.find((m) => m["id"] === 1)).toMatchObject({ error: { code: -32600 } });
    expect(got.find((m) => m["id"] === null)).toMatchObject({ error: { code: -32700 } });
    s.send('{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}');
    got = await s.waitFor(2);
    expect(got.find((m) => m["id"] === 2)).toMatchObject({ result: { protocolVersion: 1 } });
    s.send('{"jsonrpc":"2.0","id":3,"method":"spells/teleport","params":{}}');
    s.send(
      '{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"nope","prompt":"x"}}',
    );
    s.send('{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
    got = await s.waitFor(3, 4, 5);
    expect(got.find((m) => m["id"] === 3)).toMatchObject({ error: { code: -32601 } });
    expect(got.find((m) => m["id"] === 4)).toMatchObject({ error: { code: -32002 } });
    const created = got.find((m) => m["id"] === 5)!;
    const sessionId = (created["result"] as { sessionId: string }).sessionId;
    s.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "session/prompt",
        params: { sessionId, prompt: [] },
      }),
    );
    s.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "session/prompt",
        params: { sessionId, prompt: "go" },
      }),
    );
    got = await s.waitFor(6, 7);
    expect(got.find((m) => m["id"] === 6)).toMatchObject({ error: { code: -32602 } });
    expect(got.find((m) => m["id"] === 7)).toMatchObject({ result: { stopReason: "end_turn" } });
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    expect(s.lines().every((l) => JSON.parse(l) !== undefined)).toBe(true);
  });

  it("--debug logs every message on stderr, never on stdout", async () => {
    const file = spellFile([]);
    const p = start(file, "--debug");
    let out = "";
    p.child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.child.stdin.end(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n',
    );
    expect(await p.exited).toBe(0);
    expect(p.stderr()).toContain('← {"jsonrpc":"2.0","id":1,"method":"initialize"');
    expect(p.stderr()).toMatch(/→ \{"jsonrpc":"2.0","id":1,"result"/);
    expect(out.trim().split("\n")).toHaveLength(1);
  });

  it("--debug answers a message nested 5,000 deep, as without it, and logs it shortened", async () => {
    const p = start(spellFile([]), "--debug");
    let out = "";
    p.child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const deep = "[".repeat(5000) + "]".repeat(5000);
    p.child.stdin.write(
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"x":${deep}}}\n`,
    );
    p.child.stdin.end(
      '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}\n',
    );
    expect(await p.exited).toBe(0);
    const ids = out
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: unknown }).id);
    expect(ids).toEqual([1, 2]);
    expect(p.stderr()).toMatch(/← .*too deeply nested to show/);
    expect(p.stderr()).toMatch(/→ \{"jsonrpc":"2.0","id":2,"result"/);
  });

  it("--check validates the spell and its provider setup, then exits", () => {
    const ok = spawnSync(process.execPath, [bin, "acp", spellFile([]), "--check"], {
      encoding: "utf8",
    });
    expect(ok.status).toBe(0);
    expect(ok.stderr).toContain("stdio-helper is ready");
    expect(ok.stdout).toBe("");
    const noKey = spawnSync(
      process.execPath,
      [bin, "acp", spellFile([], "openai/gpt-4.1-mini"), "--check"],
      {
        encoding: "utf8",
        env: { ...process.env, OPENAI_API_KEY: "" },
      },
    );
    expect(noKey.status).not.toBe(0);
    expect(noKey.stderr).toContain("OPENAI_API_KEY");
  });
});

describe("spell acp session/load (a second process, the same loom)", () => {
  async function connect(file: string, loom: string) {
    child = spawn(process.execPath, [bin, "acp", file, "--loom", loom]);
    const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
    const client = testClient(
      ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
    await initialize(client);
    const stop = async () => {
      client.connection.close();
      child!.stdin.end();
      return exited;
    };
    return { client, stop };
  }

  it("a session of an earlier process is loaded: its conversation replayed, its thread continued", async () => {
    const file = spellFile([{ content: "noted" }, { content: "continued" }]);
    const loom = join(mkdtempSync(join(tmpdir(), "acp-load-")), "loom.jsonl");
    const one = await connect(file, loom);
    const { sessionId } = await one.client.agent.request(methods.agent.session.new, {
      cwd: tmpdir(),
      mcpServers: [],
    });
    await one.client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: "remember AARDVARK",
    } as never);
    expect(await one.stop()).toBe(0);

    const two = await connect(file, loom);
    const unknown = await two.client.agent
      .request(methods.agent.session.load, {
        sessionId: "ent_never",
        cwd: tmpdir(),
        mcpServers: [],
      })
      .then(
        () => 0,
        (e: { code: number }) => e.code,
      );
    expect(unknown).toBe(-32002);
    // An entity of the same loom that no ACP session speaks to does not load as one.
    const other = new Cantrip({
      llm: new ScriptedLLM({ responses: [{ content: "not acp" }] }),
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
      loom: new Loom(new JsonlStore(loom)),
    });
    const stranger = other.summon();
    await stranger.send("hello");
    stranger.dispose();
    other.loom.close();
    const refused = await two.client.agent
      .request(methods.agent.session.load, {
        sessionId: stranger.id,
        cwd: tmpdir(),
        mcpServers: [],
      })
      .then(
        () => 0,
        (e: { code: number }) => e.code,
      );
    expect(refused).toBe(-32002);
    await two.client.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: tmpdir(),
      mcpServers: [],
    });
    const replayed = two.client.updates
      .filter((u) => u.sessionId === sessionId)
      .map((u) => u.update);
    expect(replayed[0]).toMatchObject({
      sessionUpdate: "user_message_chunk",
      content: { text: "remember AARDVARK" },
    });
    expect(replayed[1]).toMatchObject({
      sessionUpdate: "agent_message_chunk",
      content: { text: "noted" },
    });
    // The new process's scripted llm starts its list again: its first reply answers this prompt.
    await two.client.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "and now?" }],
    });
    expect(await two.stop()).toBe(0);
    const turns = readFileSync(loom, "utf8")
      .split("\n")
      .filter((l) => l.includes('"entity_id"'))
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            parent_id: string | null;
            entity_id: string;
            sequence: number;
          },
      );
    const mine = turns.filter((t) => t.entity_id === sessionId);
    expect(mine.map((t) => t.sequence)).toEqual([1, 2]);
    expect(mine[1]!.parent_id).toBe(mine[0]!.id);
    // The session is recorded beside the loom, as the ACP session of its entity.
    const state = readState(loom);
    expect(state.sessions[sessionId]).toMatchObject({ protocol: "acp", entity_id: sessionId });
  });
});
