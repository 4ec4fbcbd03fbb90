// MCP gates in the code medium, replayed from the loom without their server, declared wrong,
// and in a `spell run` process that ends (the real notes server of tests/fixtures/mcp).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { Loom } from "../../src/loom/core/index.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import { loadSpell } from "../../src/spell/index.js";
import { mcpSpell } from "../support/mcp.js";
import { noBwrap } from "./bash-helpers.js";
import { needs } from "../support/needs.js";

describe("mcp gates in the code medium", () => {
  it("a sandbox calls a tool as a function, positional arguments named by the server's schema", async () => {
    const spell = mcpSpell({
      medium: "code",
      responses: [
        `- code: 'const hits = JSON.parse(notes_search("eggs")); done(notes_read(hits[0]))'`,
      ],
    });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("what do I buy?");
    expect(result.status).toBe("terminated");
    expect(result.result).toBe("milk, eggs, bread");
    expect(loaded.cantrip!.presentation.capability).toContain(
      "- notes_read(title: string) — Read one note by its title. (tool read of the MCP server notes)",
    );
    const calls = result.loom.turns()[0]!.gate_calls;
    expect(calls.map((c) => [c.gate_name, c.arguments])).toEqual([
      ["notes_search", '{"query":"eggs"}'],
      ["notes_read", '{"title":"groceries"}'],
      ["done", '{"answer":"milk, eggs, bread"}'],
    ]);
    expect(await spell.stopped()).toBe(true);
  });

  it("a tool's error is an Error the code can catch", async () => {
    const spell = mcpSpell({
      medium: "code",
      responses: [
        `- code: 'try { notes_read("nope") } catch (e) { done("caught: " + e.message) }'`,
      ],
    });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("read nope");
    expect(result.result).toBe("caught: notes_read: no note titled nope");
  });
});

describe("replay without the server", () => {
  it("a summoned code entity resumes in a new load, its recorded MCP results replayed, the server down", async () => {
    const spell = mcpSpell({
      medium: "code",
      loom: "loom.jsonl",
      responses: [
        `- code: 'var note = notes_read("todo"); done(note.length)'`,
        `- code: 'done(note.toUpperCase())'`,
      ],
    });
    const first = await loadSpell(spell.file);
    const entity = first.cantrip!.summon();
    expect((await entity.send("how long is my todo?")).result).toBe(27);
    entity.dispose();
    expect(spell.starts()).toHaveLength(1);
    // The same spell, its server now failing to start: the replay must not need it.
    writeFileSync(
      spell.file,
      readFileSync(spell.file, "utf8")
        .replace('notes-server.mjs"]', 'notes-server.mjs","down"]')
        .replace(/responses:\n.*\n/, "responses:\n"),
    );
    const again = await loadSpell(spell.file);
    const resumed = again.cantrip!.summon({ entity: entity.id });
    const result = await resumed.send("shout it");
    resumed.dispose();
    expect(result.status).toBe("terminated");
    expect(result.result).toBe("WRITE THE MCP GATE; TEST IT");
    // One server started by the new load, to list the tools (it refused): none served the replay.
    const loom = new Loom(new JsonlStore(join(spell.dir, "loom.jsonl")));
    const replayed = loom.turns().filter((t) => t.entity_id === entity.id);
    expect(replayed.map((t) => t.gate_calls.map((c) => c.gate_name))).toEqual([
      ["notes_read", "done"],
      ["done"],
    ]);
    expect(await spell.stopped()).toBe(true);
  });
});

describe("a bad declaration", () => {
  it("is a spell error at the gate's file:line:col", async () => {
    const spell = mcpSpell({ responses: [] });
    const errorsOf = async (item: string) => {
      writeFileSync(
        spell.file,
        readFileSync(spell.file, "utf8").replace(/ {4}- mcp: .*\n/, `    - ${item}\n`),
      );
      const err = await loadSpell(spell.file, { validateOnly: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SpellErrors);
      return (err as SpellErrors).errors.map((e) => e.format()).join("\n");
    };
    expect(await errorsOf("mcp: { name: notes, command: node }")).toMatch(
      /spell\.yaml:11:7: .*mcp: tools is required: the server's tools this circle may call/,
    );
    expect(await errorsOf("mcp: { name: notes, command: node, tools: [a], cmd: x }")).toMatch(
      /spell\.yaml:11:\d+: .*gate mcp takes no dependency "cmd" \(it takes: name, command, url, headers, args, env, cwd, tools, timeout_ms\)/,
    );
    expect(await errorsOf("mcp: { name: my-notes, command: node, tools: [a] }")).toMatch(
      /spell\.yaml:11:\d+: .*mcp: name is required: a word naming the server/,
    );
    expect(await errorsOf("mcp: { name: notes, tools: [a] }")).toMatch(
      /spell\.yaml:11:\d+: .*mcp: command is required/,
    );
    expect(await errorsOf("mcp: { name: notes, command: node, tools: [a-b, a_b] }")).toMatch(
      /mcp: tools "a-b" and "a_b" would both be gate notes_a_b/,
    );
    expect(spell.starts()).toEqual([]);
  });
});

describe("a spell run process", () => {
  it("stops its server when the run ends, and its cwd is the spell's folder", () => {
    const spell = mcpSpell({
      responses: [
        `- tool_calls: [{ gate: notes_pid, args: {} }]`,
        `- tool_calls: [{ gate: done, args: { answer: ok } }]`,
      ],
      tools: ["pid"],
      extra: "cwd: .",
    });
    // The server script named relative to the spell: it is found from the spell's folder.
    writeFileSync(
      join(spell.dir, "server.mjs"),
      `import ${JSON.stringify(resolve("tests/fixtures/mcp/notes-server.mjs"))};\n`,
    );
    writeFileSync(
      spell.file,
      readFileSync(spell.file, "utf8").replace(/args: \[[^\]]*\]/, "args: [./server.mjs]"),
    );
    const run = spawnSync(
      process.execPath,
      [resolve("bin/run.js"), "run", spell.file, "--intent", "pid?", "--loom", "memory", "--json"],
      {
        cwd: "/",
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { status: string };
    expect(out.status).toBe("terminated");
    expect(spell.starts()).toHaveLength(1);
    expect(spell.running()).toEqual([]);
  });

  it("a process that exits without disposing its entity leaves no server behind", async () => {
    const spell = mcpSpell({
      responses: [`- tool_calls: [{ gate: notes_pid, args: {} }]`],
      tools: ["pid"],
      mode: "stubborn", // outlives its stdin and ignores SIGTERM: only the exit hook's kill ends it
    });
    const script = `
      const { loadSpell } = await import(${JSON.stringify(resolve("dist/spell/index.js"))});
      const loaded = await loadSpell(${JSON.stringify(spell.file)}, { loomPath: "memory" });
      const entity = loaded.cantrip.summon();
      await entity.send("pid?");
      process.exit(0);
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"] },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(spell.starts()).toHaveLength(1);
    expect(await spell.stopped()).toBe(true);
  });
});

needs(noBwrap).describe("mcp gates in the bash medium", () => {
  it("a command calls a tool by its gate name, its words the server's parameters in order", async () => {
    const spell = mcpSpell({
      medium: "bash",
      responses: [
        "- command: 'notes_read groceries'",
        "- command: 'notes_read nope; done checked'",
      ],
    });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("what do I buy?");
    expect(result.status).toBe("terminated");
    expect(result.result).toBe("checked");
    const [first, second] = result.loom.turns();
    expect(first!.observation).toContain("milk, eggs, bread");
    expect(first!.gate_calls.map((c) => [c.gate_name, c.arguments])).toEqual([
      ["notes_read", '{"title":"groceries"}'],
    ]);
    // A tool's error is the command's failure, and the entity reads why.
    expect(second!.gate_calls[0]).toMatchObject({ gate_name: "notes_read", is_error: true });
    expect(second!.observation).toContain("no note titled nope");
    expect(await spell.stopped()).toBe(true);
  });
});
