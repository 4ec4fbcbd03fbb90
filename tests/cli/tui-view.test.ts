/**
 * The terminal UI of `spell summon` (issue 42), drawn with ink-testing-library from a
 * SessionModel fed with the events a cast emits: each state (streaming text, a running gate, an
 * approval, an error, a child) and the keys (Enter, a new line, history, Ctrl-C and Esc, Ctrl-D,
 * Tab and Ctrl-O, PgUp, /help). The end-to-end run in a real terminal is tui-tmux.test.ts.
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CantripEvent } from "../../src/core/events.js";
import { SessionModel, type StatusInfo } from "../../src/cli/tui/model.js";
import { approvalView } from "../../src/cli/tui/session.js";
import { App, type Controls } from "../../src/cli/tui/app.js";

const ROOT = "ent_root";
const STATUS: StatusInfo = {
  spell: "demo",
  model: "scripted",
  entityId: ROOT,
  loom: "l.jsonl",
  limits: { maxTurns: 5 },
};
const usage = { promptTokens: 120, completionTokens: 30, cachedTokens: 0 };

const KEY = {
  enter: "\r",
  ctrlC: "\u0003",
  ctrlD: "\u0004",
  ctrlJ: "\n",
  ctrlO: "\u000f",
  ctrlT: "\u0014",
  esc: "\u001b",
  up: "\u001b[A",
  tab: "\t",
  pageUp: "\u001b[5~",
  backspace: "\u007f",
  left: "\u001b[D",
  right: "\u001b[C",
  home: "\u001b[H",
  end: "\u001b[F",
  ctrlA: "\u0001",
  ctrlE: "\u0005",
  ctrlK: "\u000b",
  ctrlU: "\u0015",
  ctrlW: "\u0017",
};

function controls(): Controls & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    send: (intent) => calls.push(`send:${intent}`),
    cancel: () => calls.push("cancel"),
    answer: (word) => calls.push(`answer:${word}`),
    end: () => calls.push("end"),
  };
}

let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  unmount = undefined;
});

function draw(model = new SessionModel(STATUS)) {
  const c = controls();
  const app = render(h(App, { model, controls: c }));
  unmount = app.unmount;
  const frame = () => app.lastFrame() ?? "";
  const shows = (text: string | RegExp) =>
    vi.waitFor(() => {
      if (typeof text === "string") expect(frame()).toContain(text);
      else expect(frame()).toMatch(text);
    });
  /** Writes keys one read at a time, as a person types them. */
  const type = async (...keys: string[]) => {
    for (const k of keys) {
      app.stdin.write(k);
      // Each key is handled before the next (the frame is drawn from what it changed).
      await new Promise((r) => setImmediate(r));
    }
  };
  return { model, c, frame, shows, type };
}

const events = (model: SessionModel, list: CantripEvent[]) => list.forEach((e) => model.event(e));

describe("the terminal UI's states", () => {
  it("streaming: the entity's text appears as it arrives, its Markdown rendered", async () => {
    const { model, shows, frame } = draw();
    model.intent("hello");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "text", entityId: ROOT, text: "Here is **bold** and a list:\n\n- one\n- `two`" },
    ]);
    await shows("• one");
    expect(frame()).toContain("› hello");
    expect(frame()).toContain("Here is bold and a list:"); // the ** marks are gone
    expect(frame()).toContain("• two");
    expect(frame()).not.toContain("**");
    events(model, [{ type: "text", entityId: ROOT, text: "\n\n```js\nconst x = 1;\n```" }]);
    await shows("const x = 1;");
    expect(frame()).not.toContain("```");
    expect(frame()).toMatch(/turn 1 · no gates ⠋|turn 1 · no gates [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d/);
  });

  it("a running gate: the call, its arguments and a spinner with the elapsed time; then its result", async () => {
    const { model, shows, frame } = draw();
    model.intent("write it");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "tool_call", entityId: ROOT, gate: "write", arguments: '{"path":"a.txt"}' },
    ]);
    await shows(/● write \{"path":"a\.txt"\} [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+ ms/);
    events(model, [
      {
        type: "tool_result",
        entityId: ROOT,
        record: {
          gate_name: "write",
          arguments: '{"path":"a.txt"}',
          result: Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join("\n"),
          is_error: false,
          duration_ms: 1500,
        },
      },
      {
        type: "step_complete",
        entityId: ROOT,
        sequence: 1,
        turnId: "t1",
        gates: ["write"],
        usage,
        durationMs: 1600,
        outcome: "continue",
        isError: false,
      },
    ]);
    await shows("→ line 1");
    expect(frame()).toContain("turn 1 · write · 1.6 s · 120 in / 30 out");
    expect(frame()).toContain("● write");
    expect(frame()).toContain("1.5 s");
    // A long result is folded: three lines shown, the rest counted.
    expect(frame()).toContain("line 3");
    expect(frame()).not.toContain("line 4");
    expect(frame()).toContain("5 more lines");
    expect(frame()).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  it("an approval: a dialog with the deciding field whole and escaped, answered with one key", async () => {
    const { model, c, shows, frame, type } = draw();
    model.intent("run it");
    const long = "x".repeat(400);
    model.ask(
      approvalView(
        {
          gate: "bash",
          rule: "command git push*",
          depth: 0,
          arguments: JSON.stringify({ command: "git push\u001b[2J origin", note: long }),
        },
        (t) => t.replace("origin", "[REDACTED]"),
      ),
    );
    await shows("approval needed: bash — approve: command git push*");
    expect(frame()).toContain("command: git push\\u001b[2J [REDACTED]");
    expect(frame()).not.toContain("\u001b[2J");
    expect(frame()).not.toContain(long); // the arguments are cut until f
    await type("f");
    await vi.waitFor(() => expect(frame().replace(/[│\s]/g, "")).toContain(long));
    await type("y");
    expect(c.calls).toEqual(["answer:y"]);
  });

  it("an error: the turn is marked with its error, a failed cast is told", async () => {
    const { model, shows, frame } = draw();
    model.intent("read it");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "tool_call", entityId: ROOT, gate: "read", arguments: '{"path":"x"}' },
      {
        type: "tool_result",
        entityId: ROOT,
        record: {
          gate_name: "read",
          arguments: '{"path":"x"}',
          result: "no such file",
          is_error: true,
        },
      },
      {
        type: "step_complete",
        entityId: ROOT,
        sequence: 1,
        turnId: "t1",
        gates: ["read"],
        usage,
        durationMs: 20,
        outcome: "continue",
        isError: true,
        error: "no such file",
      },
    ]);
    model.castEnded({ error: "send failed: provider down" });
    await shows("send failed: provider down");
    expect(frame()).toContain("✗ no such file");
    expect(frame()).toContain("✗ read");
    expect(frame()).toContain("→ no such file");
  });

  it("a send that fails before the model answered shows no turn for it: the loom has none", async () => {
    const { model, shows, frame } = draw();
    model.intent("again");
    events(model, [{ type: "step_start", entityId: ROOT, sequence: 1 }]);
    model.castEnded({ error: "send failed: no response left" });
    await shows("send failed: no response left");
    expect(frame()).not.toMatch(/turn 1/);
    expect(frame()).not.toMatch(/truncated/);
    expect(model.turns()).toEqual([]);
  });

  it("a turn that streamed text before its send failed is kept and said to be lost", async () => {
    const { model, shows, frame } = draw();
    model.intent("again");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "text", entityId: ROOT, text: "half an answer" },
    ]);
    model.castEnded({ error: "send failed: stream cut" });
    await shows("send failed: stream cut");
    expect(frame()).toContain("half an answer");
    expect(frame()).toContain("✗ not recorded: the send failed");
    expect(frame()).not.toMatch(/→ truncated/);
  });

  it("a child: its turns nested under the parent's turn, live", async () => {
    const { model, shows, frame } = draw();
    model.intent("delegate");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "tool_call", entityId: ROOT, gate: "call_entity", arguments: '{"intent":"sub"}' },
      { type: "step_start", entityId: "ent_child", sequence: 1 },
      { type: "text", entityId: "ent_child", text: "child speaking" },
    ]);
    await shows("child speaking");
    const lines = frame().split("\n");
    const parent = lines.findIndex((l) => l.includes("● call_entity"));
    const child = lines.findIndex((l) => l.includes("↳ [ent_child] turn 1"));
    expect(parent).toBeGreaterThanOrEqual(0);
    expect(child).toBeGreaterThan(parent);
    expect(lines[child]).toMatch(/^ {2}▾ ↳/); // indented under the parent
    expect(model.turns().map((t) => t.entityId)).toEqual([ROOT, "ent_child"]);
  });

  it("the status line: spell, model, entity, turn, tokens, cost unknown, loom, a ward near its limit", async () => {
    const { model, shows, frame } = draw();
    await shows("loom l.jsonl");
    expect(frame()).toContain(
      "demo · scripted · ent_root · turn 0 · 0 in / 0 out · $0.0000 · loom l.jsonl",
    );
    model.intent("go");
    for (let n = 1; n <= 4; n++)
      events(model, [
        { type: "step_start", entityId: ROOT, sequence: n },
        {
          type: "step_complete",
          entityId: ROOT,
          sequence: n,
          turnId: `t${n}`,
          gates: [],
          usage,
          durationMs: 5,
          outcome: "continue",
          isError: false,
        },
      ]);
    await shows("turn 4 · 480 in / 120 out");
    expect(frame()).toContain("! near limit: max_turns 4/5");
    model.castEnded({
      text: "ok",
      summary: "terminated",
      usage: { promptTokens: 500, completionTokens: 125 },
    });
    await shows("500 in / 125 out · cost unknown");
  });
});

describe("the terminal UI's keys", () => {
  it("Enter sends; Ctrl-J makes a new line; Up brings back an earlier intent", async () => {
    const { c, shows, type } = draw();
    await type(..."first");
    await shows("› first");
    await type(KEY.enter);
    expect(c.calls).toEqual(["send:first"]);
    await type("a", KEY.ctrlJ, "b", KEY.enter);
    expect(c.calls).toEqual(["send:first", "send:a\nb"]);
    await type(KEY.up, KEY.up);
    await shows("› first");
    await type(KEY.backspace, KEY.enter);
    expect(c.calls.at(-1)).toBe("send:firs");
  });

  it("Left/Right move the cursor: typing and Backspace work where it is; Home/End, Ctrl-A/E go to the line's ends", async () => {
    const { c, frame, shows, type } = draw();
    await type(..."helo", KEY.left, "l");
    await shows("› hello");
    await type(KEY.home, ">", KEY.end, "!", KEY.enter);
    expect(c.calls).toEqual(["send:>hello!"]);
    // An emoji is one character for the cursor: Left passes it whole, Backspace erases it whole.
    await type(..."a😀b", KEY.left, KEY.left, "x", KEY.right, KEY.right, KEY.backspace, KEY.enter);
    expect(c.calls.at(-1)).toBe("send:ax😀");
    // Ctrl-A / Ctrl-E on the second line of an intent move within that line.
    await type("ab", KEY.ctrlJ, "cd", KEY.ctrlA, "[", KEY.ctrlE, "]", KEY.enter);
    expect(c.calls.at(-1)).toBe("send:ab\n[cd]");
    // Ctrl-D with text typed deletes the character under the cursor, and does not end.
    await type(..."xyz", KEY.home, KEY.ctrlD, KEY.enter);
    expect(c.calls.at(-1)).toBe("send:yz");
    expect(c.calls).not.toContain("end");
    await type(..."mid", KEY.left);
    // The cursor sits on the "d": drawn once, in its place, nothing added after it.
    expect(
      frame()
        .split("\n")
        .find((l) => l.startsWith("› "))
        ?.trimEnd(),
    ).toBe("› mid");
  });

  it("Ctrl-U, Ctrl-K and Ctrl-W delete to the line's start, to its end, and the word before", async () => {
    const { c, type } = draw();
    await type(..."one two three", KEY.ctrlW, KEY.enter);
    expect(c.calls).toEqual(["send:one two"]);
    await type(..."keep drop", KEY.left, KEY.left, KEY.left, KEY.left, KEY.ctrlK, "it", KEY.enter);
    expect(c.calls.at(-1)).toBe("send:keep it");
    await type(..."gone kept", KEY.left, KEY.left, KEY.left, KEY.left, KEY.ctrlU, KEY.enter);
    expect(c.calls.at(-1)).toBe("send:kept");
  });

  it("several keys in one read (a paste, a script) ending with Enter are sent as one intent", async () => {
    const { c, type } = draw();
    await type("hello there\r");
    expect(c.calls).toEqual(["send:hello there"]);
  });

  it("keys typed before the UI was up (read at once, Enter turned into a line feed by cooked mode) are sent", async () => {
    const { c, type } = draw();
    await type("What is 2 + 3?\n");
    expect(c.calls).toEqual(["send:What is 2 + 3?"]);
    await type("\n");
    expect(c.calls).toEqual(["send:What is 2 + 3?"]); // Ctrl-J alone is still a new line
  });

  it("Ctrl-C or Esc stops the running cast and keeps the session; Ctrl-C twice when idle ends it", async () => {
    const { model, c, shows, type } = draw();
    model.intent("slow");
    await type(KEY.ctrlC);
    await type(KEY.esc);
    expect(c.calls).toEqual(["cancel", "cancel"]);
    model.castEnded({ error: "interrupted" });
    await type(KEY.ctrlC);
    await shows("Ctrl-C again, or Ctrl-D, to end the session");
    expect(c.calls).toEqual(["cancel", "cancel"]);
    await type(KEY.ctrlC);
    expect(c.calls).toEqual(["cancel", "cancel", "end"]);
  });

  it("Ctrl-D at an empty idle prompt ends the session; with text typed it does not", async () => {
    const { c, type } = draw();
    await type("x", KEY.ctrlD);
    expect(c.calls).toEqual([]);
    await type(KEY.backspace, KEY.ctrlD);
    expect(c.calls).toEqual(["end"]);
  });

  it("Tab selects a turn and Ctrl-O opens it whole; /help lists the keys; PgUp scrolls", async () => {
    const { model, shows, frame, type } = draw();
    model.intent("go");
    const long = Array.from({ length: 6 }, (_, i) => `row ${i + 1}`).join("\n");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "tool_call", entityId: ROOT, gate: "read", arguments: "{}" },
      {
        type: "tool_result",
        entityId: ROOT,
        record: { gate_name: "read", arguments: "{}", result: long, is_error: false },
      },
    ]);
    await shows("row 3");
    expect(frame()).not.toContain("row 6");
    await type(KEY.tab, KEY.ctrlO);
    await shows("row 6");
    expect(frame()).toContain("▼ turn 1");
    await type(..."/help", KEY.enter);
    await shows("PgUp / PgDn");
    await type(KEY.pageUp);
    await shows("scrolled up");
  });
});

const ended = (sequence: number, turnId: string, extra: Partial<CantripEvent> = {}): CantripEvent =>
  ({
    type: "step_complete",
    entityId: ROOT,
    sequence,
    turnId,
    gates: [],
    usage,
    durationMs: 40,
    outcome: "continue",
    isError: false,
    ...extra,
  }) as CantripEvent;

describe("turn blocks", () => {
  it("Ctrl-T collapses the selected turn to its header (gates, duration, error mark); again expands it", async () => {
    const { model, shows, frame, type } = draw();
    model.intent("go");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "text", entityId: ROOT, text: "first turn" },
      ended(1, "t1"),
      { type: "step_start", entityId: ROOT, sequence: 2 },
      { type: "text", entityId: ROOT, text: "reading twice" },
      { type: "tool_call", entityId: ROOT, gate: "read", arguments: '{"path":"a"}' },
      {
        type: "tool_result",
        entityId: ROOT,
        record: { gate_name: "read", arguments: '{"path":"a"}', result: "AAA", is_error: false },
      },
      { type: "tool_call", entityId: ROOT, gate: "read", arguments: '{"path":"b"}' },
      {
        type: "tool_result",
        entityId: ROOT,
        record: { gate_name: "read", arguments: '{"path":"b"}', result: "gone", is_error: true },
      },
      ended(2, "t2"),
    ]);
    await shows("→ AAA");
    await type(KEY.tab); // the last turn
    await type(KEY.ctrlT);
    await vi.waitFor(() => expect(frame()).not.toContain("→ AAA"));
    const header = frame()
      .split("\n")
      .find((l) => l.includes("turn 2 ·"))!;
    expect(header).toMatch(/^▸ turn 2 · read ×2 · 40 ms · 120 in \/ 30 out/);
    expect(header).toContain("(text, 2 calls hidden)");
    expect(header).toContain("✗ 1 failed");
    expect(frame()).not.toContain("reading twice");
    expect(frame()).toContain("first turn"); // only the selected turn collapsed
    await type(KEY.ctrlT);
    await shows("→ AAA");
    expect(frame()).toContain("reading twice");
    expect(frame()).toMatch(/^▾ turn 2/m);
  });

  it("a running bash or code turn shows its command while it runs, then the loom's record", async () => {
    const recorded = new Map([["t1", { utterance: "sleep 5 && ls", observation: "a.txt" }]]);
    const model = new SessionModel(STATUS, (id) => recorded.get(id));
    const { shows, frame } = draw(model);
    model.intent("list");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      {
        type: "message_complete",
        entityId: ROOT,
        sequence: 1,
        content: null,
        toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: "sleep 5 && ls" }) }],
      },
    ]);
    await shows("sleep 5 && ls");
    expect(frame()).toMatch(/turn 1 · no gates [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d/); // still running
    events(model, [ended(1, "t1")]);
    await shows("→ a.txt");
    expect(frame().split("sleep 5 && ls")).toHaveLength(2); // shown once
  });

  it("a conversation gate whose argument is code is not shown twice", async () => {
    const { model, shows, frame } = draw();
    model.intent("eval");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      {
        type: "message_complete",
        entityId: ROOT,
        sequence: 1,
        content: null,
        toolCalls: [{ name: "js", arguments: JSON.stringify({ code: "1 + 41" }) }],
      },
      {
        type: "tool_call",
        entityId: ROOT,
        gate: "js",
        arguments: JSON.stringify({ code: "1 + 41" }),
      },
    ]);
    await shows("● js");
    expect(frame().split("1 + 41")).toHaveLength(2);
  });
});

describe("stderr while the UI is open", () => {
  it("is a notice line of the UI, a line at a time; undone, writes go to the stream again", async () => {
    const { model, shows, frame } = draw();
    const written: string[] = [];
    const stream = { write: (t: string | Uint8Array) => written.push(String(t)) > 0 };
    const { routeStderr } = await import("../../src/cli/tui/session.js");
    const undo = routeStderr(stream, (line) => model.notice(line));
    stream.write("warning: retrying in 2 s (429)\nhalf a ");
    stream.write(Buffer.from("line\u001b[2J\n"));
    await shows("warning: retrying in 2 s (429)");
    expect(frame()).toContain("half a line\\u001b[2J");
    expect(frame()).not.toContain("\u001b[2J");
    expect(written).toEqual([]);
    stream.write("unended");
    undo();
    await shows("unended");
    stream.write("after\n");
    expect(written).toEqual(["after\n"]);
  });
});

/** Terminal escapes a model, a gate or a file could hold: each must be shown, never run. */
const ATTACKS = [
  "\u001b]52;c;ZXZpbA==\u0007", // OSC 52: write the clipboard
  "\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\", // OSC 8: a hidden link
  "\u001b[5A\u001b[2K", // cursor up, erase the line
  "\u001bc", // ESC c: reset the terminal
  "\u202eevil\u202c", // bidi override
  "\u009b2J", // C1 CSI (UTF-8 0xC2 0x9B): clear the screen
].join(" ");
/** Any control character but the line break, any bidi control: none may reach the screen. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("ATTACK: escape sequences are shown escaped, never interpreted", () => {
  it("in the entity's text, a Markdown code block, a link target, a gate's arguments and result", async () => {
    const { model, shows, frame, type } = draw();
    model.intent(`look ${ATTACKS}`);
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      {
        type: "text",
        entityId: ROOT,
        text: `Para ${ATTACKS}\n\n\`\`\`\ncode ${ATTACKS}\n\`\`\`\n\n[site](https://x.example/\u001b]52;c;QQ==\u0007) and \`span ${ATTACKS}\``,
      },
      {
        type: "tool_call",
        entityId: ROOT,
        gate: `read\u001b[31m`,
        arguments: JSON.stringify({ path: ATTACKS }),
      },
      {
        type: "tool_result",
        entityId: ROOT,
        record: {
          gate_name: `read\u001b[31m`,
          arguments: "{}",
          result: `res ${ATTACKS}`,
          is_error: false,
        },
      },
    ]);
    await shows("code \\u001b]52;c;ZXZpbA==\\u0007");
    const f = frame();
    expect(f).not.toMatch(RAW);
    expect(f).toContain("Para \\u001b]52");
    expect(f).toContain("\\u009b2J");
    expect(f).toContain("\\u202eevil\\u202c");
    expect(f).toContain("\\u001bc");
    expect(f).toContain("res \\u001b]52");
    expect(f).toContain("read\\u001b[31m");
    expect(f).toContain("› look \\u001b]52");
    // Opened whole, the arguments and result are escaped as well.
    await type(KEY.tab, KEY.ctrlO);
    await shows("▼ turn 1");
    expect(frame()).not.toMatch(RAW);
  });

  it("in the status line (spell name, model, loom path) and the prompt", async () => {
    const model = new SessionModel({
      ...STATUS,
      spell: `s\u001b]0;t\u0007`,
      loom: `/t/\u009b2J\u202e`,
      model: "m\u001bc",
    });
    const { shows, frame, type } = draw(model);
    await shows("s\\u001b]0;t\\u0007 · m\\u001bc");
    await type(`typed \u009b2J`);
    await shows("typed \\u009b2J");
    expect(frame()).toContain("loom /t/\\u009b2J\\u202e");
    expect(frame()).not.toMatch(RAW);
  });

  it("in the approval dialog, its deciding fields and its full arguments", async () => {
    const { model, shows, frame, type } = draw();
    model.intent("go");
    model.ask(
      approvalView(
        {
          gate: `fetch\u001b[2K`,
          rule: `url *\u202e`,
          depth: 1,
          arguments: JSON.stringify({ url: `https://a.example/${ATTACKS}`, path: ATTACKS }),
        },
        (t) => t,
      ),
    );
    await shows("approval needed: fetch\\u001b[2K");
    expect(frame()).not.toMatch(RAW);
    await type("f");
    await vi.waitFor(() => expect(frame().replace(/[│\s]/g, "")).toContain("\\u009b2J"));
    expect(frame()).not.toMatch(RAW);
  });
});

describe("ATTACK: a flood does not hang the UI", () => {
  it("a 10 MB gate result is folded; opened whole it is cut, the rest counted", async () => {
    const { model, shows, frame, type } = draw();
    const huge = `${"0123456789abcdef".repeat(64)}\n`.repeat(10_000); // 10 MB, 10,000 lines
    model.intent("flood");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      {
        type: "tool_call",
        entityId: ROOT,
        gate: "read",
        arguments: JSON.stringify({ path: huge }),
      },
      {
        type: "tool_result",
        entityId: ROOT,
        record: { gate_name: "read", arguments: "{}", result: huge, is_error: false },
      },
      ended(1, "t1"),
    ]);
    await shows("more lines");
    expect(frame()).toContain(`(${huge.length} characters in all)`);
    expect(frame().length).toBeLessThan(20_000);
    await type(KEY.tab, KEY.ctrlO);
    await shows("spell loom thread shows it whole");
    expect(model.turns()[0]!.calls[0]!.result).toHaveLength(huge.length); // kept, only cut on screen
  });

  it("10 MB of streamed text is cut, the rest counted", async () => {
    const { model, shows, frame } = draw();
    model.intent("talk");
    events(model, [
      { type: "step_start", entityId: ROOT, sequence: 1 },
      { type: "text", entityId: ROOT, text: "word ".repeat(2_000_000) },
    ]);
    await shows(/… \d+ more characters/);
    expect(frame().length).toBeLessThan(20_000);
  });

  it("a session of 10,000 turns draws the screenful it shows", async () => {
    const { model, shows, frame, type } = draw();
    model.intent("many");
    for (let n = 1; n <= 10_000; n++)
      events(model, [
        { type: "step_start", entityId: ROOT, sequence: n },
        { type: "text", entityId: ROOT, text: `said ${n}` },
        ended(n, `t${n}`),
      ]);
    await shows("said 10000");
    expect(frame()).toContain("turn 10000");
    expect(frame()).not.toContain("said 1\n");
    expect(frame().split("\n").length).toBeLessThanOrEqual(24);
    await type(KEY.pageUp);
    await shows("scrolled up");
    expect(frame()).toContain("said 99"); // the page above is drawn
  });
});
