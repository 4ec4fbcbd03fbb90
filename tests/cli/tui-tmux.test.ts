/**
 * `spell summon` in a real terminal (issue 42): tmux runs the built CLI on a scripted spell in a
 * pane of its own server (a private socket, so no other tmux is touched); the test types with
 * send-keys and reads the screen with capture-pane, waiting until the expected text is on it.
 * Checked: the streamed text, a turn block with its code and output, the status line's tokens,
 * an approval answered with `y`, Ctrl-C stopping a slow command while the session stays, Ctrl-D
 * ending it with line mode's closing line and exit code; and a loom with the same turns as a
 * line-mode session's. Needs tmux and `npm run build` (bin/run.js, dist/tui.mjs).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, expect, it } from "vitest";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";
import { needs, notBuilt } from "../support/needs.js";
import { startLoopbackProvider } from "../support/providers.js";

const BIN = resolve("bin/run.js");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** Text, a command to approve, text, a command that takes long, text (bash medium, on the host). */
const SPELL = `
name: demo
llm:
  provider: scripted
  usage: { prompt_tokens: 120, completion_tokens: 30 }
  responses:
    - content: "Hello **there**, a list:\\n\\n- one\\n- two"
    - command: "touch a.txt && echo made"
    - content: "made it"
    - command: "sleep 60"
    - content: "still here"
identity: {}
circle:
  medium: bash
  sandbox: passthrough
  writable: true
  gates: [done]
  wards: [{ max_turns: 5 }]
  approve: [{ command: "touch*" }]
`;

function spellDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tui-tmux-"));
  writeFileSync(join(dir, "spell.yaml"), SPELL);
  return dir;
}

const servers: string[] = [];
/** Each terminal's own socket name: a killed server may still be exiting when the next test starts. */
let started = 0;
afterEach(() => {
  for (const socket of servers.splice(0))
    spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
});

/** A tmux server of the test's own, one pane of 100×32 running `spell summon` in `dir`. */
function terminal(dir: string, args: string[], cli = ["summon", "spell.yaml"], env: string[] = []) {
  const socket = `spell-tui-${process.pid}-${started++}`;
  servers.push(socket);
  const tmux = (...a: string[]) =>
    execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...a], { encoding: "utf8" });
  // Ink draws only its last frame under CI variables (and summon keeps line mode there): unset.
  const command = [
    "env -u CI -u CONTINUOUS_INTEGRATION TERM=xterm-256color",
    ...env,
    process.execPath,
    BIN,
    ...cli,
    ...args,
    "; echo EXIT=$?; exec sleep 600",
  ].join(" ");
  tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "32", "-c", dir, command);
  const screen = () => tmux("capture-pane", "-p", "-t", "t");
  /** Resolves with the screen once it shows `text`; fails with the screen after 30 s. */
  const shows = async (text: string | RegExp): Promise<string> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = screen();
      if (typeof text === "string" ? now.includes(text) : text.test(now)) return now;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${text}:\n${now}`);
      await new Promise((r) => setTimeout(r, 100)); // poll the screen, not a wait for time
    }
  };
  return {
    shows,
    screen,
    type: (text: string) => tmux("send-keys", "-t", "t", "-l", text),
    key: (...keys: string[]) => tmux("send-keys", "-t", "t", ...keys),
    resize: (x: number, y: number) =>
      tmux("resize-window", "-t", "t", "-x", String(x), "-y", String(y)),
  };
}

needs(hasTmux ? undefined : "tmux is not installed", notBuilt(), notBuilt("dist/tui.mjs")).describe(
  "spell summon's terminal UI in tmux",
  () => {
    it("streams, shows turns and tokens, asks in place, stops a slow command, ends on Ctrl-D", async () => {
      const dir = spellDir();
      const t = terminal(dir, ["--loom", "memory"]);
      await t.shows("demo · scripted · ent_");
      t.type("hi there");
      t.key("Enter");
      let now = await t.shows("Hello there, a list:");
      expect(now).toContain("› hi there");
      expect(now).toContain("• one");
      expect(now).not.toContain("**");
      now = await t.shows("turn 1 · 120 in / 30 out");
      expect(now).toMatch(/▾ turn 1 · no gates · \d+ ms · 120 in \/ 30 out → terminated/);

      // A narrower terminal: the UI is drawn again at its width (the status line cut to it).
      t.resize(70, 32);
      now = await t.shows(/^ demo · scripted · ent_.*…$/m);
      const status = now.split("\n").find((l) => l.startsWith(" demo · scripted"))!;
      expect(status.length).toBeLessThanOrEqual(70);
      t.resize(100, 32);
      await t.shows(/^ demo · scripted · ent_\S+ · turn 1 · 120 in \/ 30 out/m);

      t.type("touch it");
      t.key("Enter");
      now = await t.shows("approval needed: bash — approve: command touch*");
      expect(now).toContain("command: touch a.txt && echo made");
      expect(existsSync(join(dir, "a.txt"))).toBe(false);
      t.key("y");
      now = await t.shows("made it");
      expect(existsSync(join(dir, "a.txt"))).toBe(true);
      expect(now).not.toContain("approval needed");
      expect(now).toContain("touch a.txt && echo made"); // the turn's command, from the loom
      expect(now).toContain("→ made");
      await t.shows("turn 3 · 360 in / 90 out");

      t.type("take your time");
      t.key("Enter");
      // The spinner runs and the command is shown while it runs (on a loaded machine a frame may
      // be drawn between the turn's start and its command: wait for the one with both).
      now = await t.shows(/▾ turn 4 · no gates [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d[\s\S]*sleep 60/);
      expect(now).not.toContain("truncated"); // still running: not yet stopped
      t.key("C-c");
      now = await t.shows("truncated (interrupted)");
      expect(now).toContain("interrupted: stopping the current cast (the session goes on)");
      t.type("still there?");
      t.key("Enter");
      await t.shows("still here");

      t.key("C-d");
      now = await t.shows("EXIT=0");
      expect(now).toMatch(/session ended · entity ent_/);
      expect(now).not.toContain("demo · scripted"); // the UI's screen is gone
    }, 90_000);

    it("the loom holds the same turns as a line-mode session's", async () => {
      const tuiDir = spellDir();
      const t = terminal(tuiDir, ["--loom", "l.jsonl"]);
      await t.shows("demo · scripted · ent_");
      t.type("hi there");
      t.key("Enter");
      await t.shows("Hello there");
      t.type("touch it");
      t.key("Enter");
      await t.shows("approval needed");
      t.key("y");
      await t.shows("made it");
      t.key("C-d");
      await t.shows("EXIT=0");

      const lineDir = spellDir();
      const line = spawnSync(
        process.execPath,
        [BIN, "summon", "spell.yaml", "--loom", "l.jsonl", "--plain", "--approve", "gate=bash"],
        { cwd: lineDir, input: "hi there\ntouch it\n", encoding: "utf8" },
      );
      expect(line.status).toBe(0);
      const turns = (dir: string) =>
        readFileSync(join(dir, "l.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((r) => r["type"] === "turn")
          .map((r) => [r["sequence"], r["utterance"], r["observation"], r["gate_calls"]]);
      expect(turns(tuiDir)).toHaveLength(3);
      expect(turns(tuiDir)).toEqual(turns(lineDir));
    }, 90_000);

    it("spell familiar: opens, sends, shows the code it runs and the reply, ends on Ctrl-D", async () => {
      // The Familiar's LLM: a loopback OpenAI-compatible server (the real adapter), one reply.
      const code = 'done("hello from the familiar")';
      const server = await startLoopbackProvider([
        wireReplyOf("llm", { tool_calls: [{ gate: "js", args: { code } }] }, 0),
      ]);
      try {
        const dir = mkdtempSync(join(tmpdir(), "tui-familiar-"));
        writeFileSync(join(dir, "README.md"), "a workspace\n");
        const t = terminal(
          dir,
          ["--llm", "local/mock"],
          ["familiar", "."],
          [`LOCAL_LLM_BASE_URL=${server.url}/v1`],
        );
        await t.shows(/familiar · local\/mock · ent_/);
        t.type("who are you?");
        t.key("Enter");
        let now = await t.shows("hello from the familiar");
        expect(now).toContain("› who are you?");
        expect(now).toContain(code); // the turn's code, as a code block
        now = await t.shows("terminated (done) after 1 turn"); // the cast ended: Ctrl-D ends
        expect(now).toMatch(/▾ turn 1 · done · \d+ ms/);
        t.key("C-d");
        now = await t.shows("EXIT=0");
        expect(now).toMatch(/session ended · entity ent_/);
        expect(now).not.toContain("familiar · local/mock"); // the UI's screen is gone
        expect(existsSync(join(dir, ".spellbook", "familiar.jsonl"))).toBe(true);
        expect(server.pending()).toBe(0);
      } finally {
        await server.close();
      }
    }, 90_000);
  },
);
