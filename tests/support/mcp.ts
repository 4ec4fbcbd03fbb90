/**
 * A folder with a spell whose circle declares the notes MCP server (tests/fixtures/mcp), a real
 * server process spawned by the gate over stdio; `starts()` lists each start of the server, and
 * `running()` the processes of this spell's servers still alive (found by their NOTES_PIDS
 * variable: a server runs in a pid namespace of its own, so the pid it knows is not the host's).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const NOTES_SERVER = resolve("tests/fixtures/mcp/notes-server.mjs");

export interface McpSpellOptions {
  medium?: "conversation" | "code" | "bash";
  /** Replies of the scripted LLM, as YAML list items (each `- …` line). */
  responses: string[];
  tools?: string[];
  /** Extra keys of the mcp item, written inside its braces. */
  extra?: string;
  /** The server's mode argument (`down`: it exits at once). */
  mode?: string;
  loom?: string;
}

export interface McpSpell {
  dir: string;
  file: string;
  pidFile: string;
  /** One line per server start so far (the pid the server saw as its own). */
  starts(): string[];
  /** Host pids of the processes of this spell's servers (and their wrappers) still alive. */
  running(): number[];
  /** Waits (a generous while) until none is running; true when none is. */
  stopped(): Promise<boolean>;
}

export function mcpSpell(options: McpSpellOptions): McpSpell {
  const dir = mkdtempSync(join(tmpdir(), "mcp-spell-"));
  const pidFile = join(dir, "pids.txt");
  const tools = options.tools ?? ["search", "read"];
  const args = [NOTES_SERVER, ...(options.mode ? [options.mode] : [])];
  const file = join(dir, "spell.yaml");
  writeFileSync(
    file,
    `name: notes-reader
llm:
  provider: scripted
  responses:${options.responses.length ? "" : " []"}
${options.responses.map((r) => `    ${r}`).join("\n")}
identity: { system_prompt: You read notes. }
circle:
  medium: ${options.medium ?? "conversation"}
  gates:
    - done
    - mcp: { name: notes, command: ${process.execPath}, args: ${JSON.stringify(args)}, tools: ${JSON.stringify(tools)}, env: { NOTES_PIDS: ${JSON.stringify(pidFile)} }${options.extra ? `, ${options.extra}` : ""} }
  wards: [{ max_turns: 6 }]
${options.loom ? `loom: { path: ${options.loom} }\n` : ""}`,
  );
  const starts = () =>
    existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean) : [];
  const running = () => withVariable(`NOTES_PIDS=${pidFile}`);
  const stopped = async () => {
    const until = Date.now() + 15_000;
    while (running().length) {
      if (Date.now() > until) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
    return true;
  };
  return { dir, file, pidFile, starts, running, stopped };
}

/** Pids of the live processes (readable by this user) whose environment holds `entry`. */
function withVariable(entry: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue; // ended, not reaped
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(entry))
        pids.push(Number(name));
    } catch {
      // ended while we looked, or not ours to read
    }
  }
  return pids;
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (a bounded while) for every pid to be gone; true when they are. */
export async function gone(pids: number[], ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (pids.some(alive)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}
