// MCP servers as gates: a real server (tests/fixtures/mcp/notes-server.mjs, the SDK's own
// McpServer over stdio) spawned by the gate; nothing of the protocol is faked.
import { describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";
import { mcpSpell } from "../support/mcp.js";

const call = (gate: string, args: Record<string, unknown> = {}) =>
  `- tool_calls: [{ gate: ${gate}, args: ${JSON.stringify(args)} }]`;
const finish = `- tool_calls: [{ gate: done, args: { answer: ok } }]`;

async function cast(spell: ReturnType<typeof mcpSpell>, env: NodeJS.ProcessEnv = {}) {
  const loaded = await loadSpell(spell.file, {
    loomPath: "memory",
    env: { ...process.env, ...env },
  });
  const result = await loaded.cantrip!.cast("read my notes");
  const calls = result.loom.turns().flatMap((t) => t.gate_calls);
  return { loaded, result, calls };
}

describe("mcp gates in the conversation medium", () => {
  it("presents each allowed tool with the server's description and schema, and calls it", async () => {
    const spell = mcpSpell({ responses: [call("notes_search", { query: "milk" }), finish] });
    const { loaded, result, calls } = await cast(spell);
    expect(result.status).toBe("terminated");
    expect(calls[0]).toMatchObject({ gate_name: "notes_search", is_error: false });
    expect(calls[0]!.result).toBe('["groceries"]');
    const tools = loaded.cantrip!.presentation.tools;
    expect(tools.map((t) => t.name)).toEqual(["done", "notes_search", "notes_read"]);
    expect(tools[1]!.description).toBe(
      "Find notes whose title or text contains a word. (tool search of the MCP server notes)",
    );
    expect(tools[1]!.parameters).toEqual({
      type: "object",
      properties: { query: { type: "string", description: "The word to look for" } },
      required: ["query"],
    });
    expect(spell.starts()).toHaveLength(1);
    expect(await spell.stopped()).toBe(true); // stopped when the cast ended
  });

  it("loading and validating a spell starts no server", async () => {
    const spell = mcpSpell({ responses: [finish] });
    await loadSpell(spell.file, { loomPath: "memory", validateOnly: true });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    expect(loaded.cantrip!.presentation.tools.map((t) => t.name)).toContain("notes_read");
    expect(spell.starts()).toEqual([]);
  });

  it("a tool outside the allow list is not a gate; one the server does not offer is an error naming what it offers", async () => {
    const spell = mcpSpell({
      tools: ["read", "delete"],
      responses: [
        `- tool_calls: [{ gate: notes_delete, args: {} }, { gate: notes_search, args: { query: x } }]`,
        finish,
      ],
    });
    const { calls } = await cast(spell);
    expect(calls[0]).toMatchObject({ gate_name: "notes_delete", is_error: true });
    expect(calls[0]!.result).toBe(
      'notes_delete: the MCP server notes offers no tool "delete"; it offers: search, read, secret, crash, env, pid',
    );
    expect(calls[1]).toMatchObject({ gate_name: "notes_search", is_error: true });
    expect(calls[1]!.result).toContain('unknown gate "notes_search"');
  });

  it("a tool's error result (isError) is an error observation", async () => {
    const spell = mcpSpell({ responses: [call("notes_read", { title: "nope" }), finish] });
    const { calls, result } = await cast(spell);
    expect(calls[0]).toMatchObject({ is_error: true, result: "notes_read: no note titled nope" });
    expect(result.loom.turns()[0]!.is_error).toBe(true);
  });

  it("a server that crashes mid-cast is an error observation, and the next call starts it again", async () => {
    const spell = mcpSpell({
      tools: ["crash", "read"],
      responses: [call("notes_crash"), call("notes_read", { title: "todo" }), finish],
    });
    const { calls, result } = await cast(spell);
    expect(result.status).toBe("terminated");
    expect(calls[0]).toMatchObject({ gate_name: "notes_crash", is_error: true });
    expect(calls[0]!.result).toBe(
      "notes_crash: MCP server notes exited during the call; its stderr ends: notes-server: crashing on purpose",
    );
    expect(calls[1]).toMatchObject({ is_error: false, result: "write the MCP gate; test it" });
    expect(spell.starts()).toHaveLength(2);
    expect(await spell.stopped()).toBe(true);
  });

  it("a server that does not start is an error observation saying why, its stderr included", async () => {
    const spell = mcpSpell({
      mode: "down",
      responses: [call("notes_read", { title: "x" }), finish],
    });
    const { calls, result, loaded } = await cast(spell);
    expect(result.status).toBe("terminated");
    expect(calls[0]!.is_error).toBe(true);
    expect(calls[0]!.result).toMatch(
      /^notes_read: MCP server notes did not start \(.*node\): MCP error -32000: Connection closed; its stderr ends: notes-server: refusing to start \(mode down\)$/,
    );
    // Without the server's list, the gate is still presented, with what the spell says.
    expect(loaded.cantrip!.presentation.tools[2]).toMatchObject({
      name: "notes_read",
      description: "The tool read of the MCP server notes.",
    });
    const missing = mcpSpell({ responses: [call("notes_read", { title: "x" }), finish] });
    const { writeFileSync, readFileSync } = await import("node:fs");
    writeFileSync(
      missing.file,
      readFileSync(missing.file, "utf8").replace(process.execPath, "/nonexistent/mcp-server"),
    );
    const other = await cast(missing);
    // Started directly, the spawn fails; in its pid namespace, bubblewrap says it cannot run it.
    expect(other.calls[0]!.result).toMatch(
      /^notes_read: MCP server notes did not start \(\/nonexistent\/mcp-server\): (spawn \/nonexistent\/mcp-server ENOENT|.*bwrap: execvp \/nonexistent\/mcp-server: No such file or directory)$/,
    );
  });

  it("secrets from ${env:…} in env and args never come back in results", async () => {
    const spell = mcpSpell({
      tools: ["secret"],
      extra: "timeout_ms: 20000",
      responses: [call("notes_secret"), finish],
    });
    const { readFileSync, writeFileSync } = await import("node:fs");
    writeFileSync(
      spell.file,
      readFileSync(spell.file, "utf8").replace(
        "env: {",
        "env: { NOTES_TOKEN: '${env:NOTES_TOKEN}',",
      ),
    );
    const { calls } = await cast(spell, { NOTES_TOKEN: "tok-9f8e7d6c" });
    expect(calls[0]!.result).toBe("my token is [REDACTED]");
    expect(JSON.stringify(calls)).not.toContain("tok-9f8e7d6c");
  });

  it("a server sees only a few variables of the environment, and its own env:", async () => {
    const spell = mcpSpell({ tools: ["env"], responses: [call("notes_env"), finish] });
    process.env["SPELLBOOK_MCP_LEAK_PROBE"] = "should not reach the server";
    try {
      const { calls } = await cast(spell);
      const names = calls[0]!.result.split(",");
      expect(names).toContain("NOTES_PIDS"); // the spell's env:
      expect(names).not.toContain("SPELLBOOK_MCP_LEAK_PROBE");
      // PWD, the server's own folder, is set by bubblewrap where the server runs in it.
      for (const name of names)
        expect(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "NOTES_PIDS", "PWD"]).toContain(
          name,
        );
    } finally {
      delete process.env["SPELLBOOK_MCP_LEAK_PROBE"];
    }
  });
});
