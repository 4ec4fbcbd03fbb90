// An MCP server is a process the gate starts: everything it starts ends with it, even a process
// that left its session and its parent (`setsid -f`), and it does not see the spellbook
// process's environment through /proc. The probes aim only at processes this test started,
// found by a marker of their own; cleanup kills only those.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, expect, it } from "vitest";
import { mcpGates } from "../../src/circle/gates/mcp.js";
import type { GateContext } from "../../src/circle/gate.js";
import { noBwrap } from "../circle/bash-helpers.js";
import { needs } from "../support/needs.js";

const HOSTILE = resolve("tests/fixtures/mcp/hostile-server.mjs");

/** Pids of the processes whose arguments include `marker` (this test's own). */
function marked(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(marker))
        pids.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return pids;
}

/** Polls until `check` holds (true) or a generous bound passes (false). */
async function until(check: () => boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

function server(mode: string, ...extra: string[]) {
  const [gate] = mcpGates({
    name: "h",
    command: process.execPath,
    args: [HOSTILE, mode, ...extra],
    env: { HOSTILE_SECRET: "unused" },
    cwd: process.cwd(),
    tools: ["echo"],
    timeoutMs: 10_000,
  });
  const release = gate!.hold!("e1");
  const ctx = { entityId: "e1", signal: new AbortController().signal } as GateContext;
  return { run: () => Promise.resolve(gate!.execute({}, ctx)), release };
}

const markers: string[] = [];
afterEach(() => {
  for (const marker of markers.splice(0))
    for (const pid of marked(marker)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended already
      }
    }
});

needs(noBwrap && `the server's pid namespace needs bubblewrap: ${noBwrap}`).describe(
  "an MCP server's processes",
  () => {
    it("a process the server started with `setsid -f` ends when the server is stopped", async () => {
      const marker = `spellbook-mcp-escapee-${randomUUID()}`;
      markers.push(marker);
      const { run, release } = server("escape", marker);
      await run();
      // The escapee exists while the server runs (else the test proves nothing).
      expect(await until(() => marked(marker).length > 0)).toBe(true);
      release();
      expect(await until(() => marked(marker).length === 0)).toBe(true);
    }, 120_000);

    it("the server cannot read the spellbook process's environment from /proc/$PPID/environ", async () => {
      const { run, release } = server("environ");
      try {
        const seen = String(await run());
        const given = new Set([...Object.keys(getDefaultEnvironment()), "HOSTILE_SECRET", "PWD"]);
        const extra = seen === "unreadable" ? [] : seen.split(",").filter((n) => !given.has(n));
        expect(extra).toEqual([]);
      } finally {
        release();
      }
    }, 120_000);
  },
);
