/**
 * The terminal UI of a session (issue 42), drawn with Ink from a SessionModel: the conversation
 * (scrollable), an approval dialog when one is asked, the prompt, and the status line. Keys are
 * listed in KEYS (and by `/help`). The session (session.ts) owns the entity; this only draws and
 * turns keys into the Controls' calls.
 */
import { Box, Text, useInput, useStdout } from "ink";
import {
  createElement as h,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from "react";
import { Markdown } from "./markdown.js";
import type { ApprovalView, Entry, SessionModel, TurnView } from "./model.js";
import { codeOf, duration, fold, oneLine, safeText } from "./text.js";

export interface Controls {
  /** Sends an intent (the session records it in the model and casts). */
  send(intent: string): void;
  /** Stops the running cast; the session goes on. */
  cancel(): void;
  /** Answers the approval asked. */
  answer(word: "y" | "n" | "a"): void;
  /** Ends the session. */
  end(): void;
}

export const KEYS: [string, string][] = [
  ["Enter", "send the intent"],
  ["Alt-Enter or Ctrl-J", "a new line in the intent"],
  ["Up / Down", "earlier intents"],
  ["Esc or Ctrl-C", "stop the running cast (the session goes on)"],
  ["Ctrl-C twice, or Ctrl-D", "end the session (at an idle, empty prompt)"],
  ["PgUp / PgDn", "scroll the conversation"],
  ["Tab / Shift-Tab", "select a turn"],
  ["Ctrl-O", "open the selected turn whole (again: fold it)"],
  ["y / n / a / f", "approval: allow once / deny / allow for the session / full arguments"],
  ["/help", "this list"],
];

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Lines and characters of a gate result shown in a folded turn. */
const RESULT_LINES = 3;
const RESULT_CHARS = 240;

/** A spinner with the time since `since`, redrawn while it is shown. */
export function Spinner({ since }: { since: number }): ReactNode {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 120);
    return () => clearInterval(timer);
  }, []);
  const frame = SPINNER[Math.floor(now / 120) % SPINNER.length];
  return h(Text, { color: "yellow" }, `${frame} ${duration(Math.max(0, now - since))}`);
}

export function TurnBlock({
  turn,
  selected,
  opened,
  width,
  model,
}: {
  model: SessionModel;
  turn: TurnView;
  selected: number | undefined;
  opened: ReadonlySet<number>;
  width: number;
}): ReactNode {
  const open = opened.has(turn.key);
  const end = turn.end;
  const gates = turn.calls.map((c) => c.gate).join(", ") || "no gates";
  const head = `${turn.depth > 0 ? `↳ [${turn.entityId}] ` : ""}turn ${turn.sequence} · ${gates}`;
  const tail = end
    ? ` · ${duration(end.durationMs)} · ${end.tokensIn} in / ${end.tokensOut} out${end.outcome === "continue" ? "" : ` → ${end.outcome}`}`
    : "";
  const running = !end && !turn.calls.some((c) => c.result === undefined);
  const work = model.work(turn);
  return h(
    Box,
    { flexDirection: "column", marginLeft: turn.depth > 0 ? 2 : 0 },
    h(
      Box,
      null,
      h(
        Text,
        { inverse: selected === turn.key, dimColor: selected !== turn.key, bold: !!end?.error },
        `${open ? "▾" : "▸"} ${head}${tail}`,
      ),
      end?.error ? h(Text, { color: "red" }, ` ✗ ${oneLine(end.error, 100)}`) : null,
      running ? h(Text, null, " ") : null,
      running ? h(Spinner, { since: turn.startedAt }) : null,
    ),
    turn.text ? h(Box, { paddingLeft: 2 }, h(Markdown, { text: turn.text })) : null,
    work ? h(WorkView, { work, open }) : null,
    ...turn.calls.map((call, i) => {
      const code = codeOf(call.args);
      const args = code === undefined ? call.args : "";
      const result = call.result === undefined ? undefined : fold(call.result, RESULT_LINES, RESULT_CHARS);
      return h(
        Box,
        { key: `c${i}`, flexDirection: "column", paddingLeft: 2 },
        h(
          Box,
          null,
          h(Text, { color: call.isError ? "red" : "green" }, `${call.isError ? "✗" : "⏺"} ${call.gate} `),
          h(Text, null, open ? safeText(args) : oneLine(args, Math.max(20, width - call.gate.length - 12))),
          call.result === undefined ? h(Text, null, " ") : null,
          call.result === undefined ? h(Spinner, { since: call.startedAt }) : null,
          call.durationMs !== undefined ? h(Text, { dimColor: true }, ` ${duration(call.durationMs)}`) : null,
        ),
        code !== undefined
          ? h(Box, { paddingLeft: 2 }, h(Text, { color: "cyan" }, open ? safeText(code) : fold(code, 6, 600).shown))
          : null,
        result
          ? h(
              Box,
              { paddingLeft: 2, flexDirection: "column" },
              h(
                Text,
                { color: call.isError ? "red" : undefined },
                `→ ${open ? safeText(call.result!) : result.shown}`,
              ),
              !open && result.more
                ? h(Text, { dimColor: true }, `  … ${result.more} (Tab selects the turn, Ctrl-O opens it)`)
                : null,
            )
          : null,
      );
    }),
    ...turn.children.map((child) =>
      h(TurnBlock, { key: child.key, turn: child, selected, opened, width, model }),
    ),
  );
}

/** A code or bash turn's code and output (from the loom), folded unless the turn is open. */
function WorkView({ work, open }: { work: { code: string; output: string }; open: boolean }): ReactNode {
  const code = open ? { shown: safeText(work.code), more: "" } : fold(work.code, 6, 600);
  const output = open ? { shown: safeText(work.output), more: "" } : fold(work.output, RESULT_LINES, RESULT_CHARS);
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 2 },
    h(Text, { color: "cyan" }, code.shown),
    code.more ? h(Text, { dimColor: true }, `  … ${code.more}`) : null,
    work.output ? h(Text, null, `→ ${output.shown}`) : null,
    output.more
      ? h(Text, { dimColor: true }, `  … ${output.more} (Tab selects the turn, Ctrl-O opens it)`)
      : null,
  );
}

function EntryView({
  entry,
  selected,
  opened,
  width,
  model,
}: {
  model: SessionModel;
  entry: Entry;
  selected: number | undefined;
  opened: ReadonlySet<number>;
  width: number;
}): ReactNode {
  switch (entry.kind) {
    case "intent":
      return h(Box, { marginTop: 1 }, h(Text, { bold: true, color: "blue" }, `› ${safeText(entry.text)}`));
    case "turn":
      return h(TurnBlock, { turn: entry.turn, selected, opened, width, model });
    case "result":
      return h(
        Box,
        { flexDirection: "column" },
        entry.text ? h(Markdown, { text: entry.text }) : null,
        h(Text, { dimColor: true }, entry.summary),
      );
    case "notice":
      return h(Text, { color: entry.error ? "red" : "magenta" }, safeText(entry.text));
  }
}

export function ApprovalDialog({ approval }: { approval: ApprovalView }): ReactNode {
  const who = approval.depth > 0 ? ` (child entity, depth ${approval.depth})` : "";
  const args = approval.full ? approval.args : oneLine(approval.args, 300);
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderColor: "yellow", paddingX: 1 },
    h(Text, { bold: true }, `approval needed: ${approval.gate}${who} — approve: ${approval.rule}`),
    ...approval.deciding.map(([k, v]) =>
      h(Text, { key: k }, h(Text, { bold: true }, `${k}: `), v),
    ),
    h(Text, { dimColor: !approval.full }, `arguments: ${args}`),
    h(Text, { color: "yellow" }, "[y] allow once · [a] allow for the session · [n] deny · [f] full arguments"),
  );
}

export function StatusLine({ model }: { model: SessionModel }): ReactNode {
  const s = model.status;
  const cost = model.costUsd === undefined ? "cost unknown" : `$${model.costUsd.toFixed(4)}`;
  const near = model.nearLimits();
  return h(
    Box,
    null,
    h(
      Text,
      { inverse: true, wrap: "truncate-end" },
      ` ${s.spell} · ${s.model} · ${s.entityId} · turn ${model.turn} · ${model.tokensIn} in / ${model.tokensOut} out · ${cost} · loom ${s.loom} `,
    ),
    near.length ? h(Text, { color: "red", bold: true }, ` ⚠ ${near.join(", ")}`) : null,
  );
}

function Prompt({ value, running }: { value: string; running: boolean }): ReactNode {
  const lines = value.split("\n");
  return h(
    Box,
    { flexDirection: "column" },
    ...lines.map((line, i) =>
      h(
        Text,
        { key: i },
        h(Text, { color: "blue", bold: true }, i === 0 ? "› " : "  "),
        line,
        i === lines.length - 1 ? h(Text, { inverse: true }, " ") : "",
      ),
    ),
    running ? h(Text, { dimColor: true }, "casting… Esc or Ctrl-C stops it") : null,
  );
}

/** The terminal's size, redrawn when it changes. */
function useSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on("resize", onResize);
    return () => void stdout.off("resize", onResize);
  });
  return size;
}

export function App({ model, controls }: { model: SessionModel; controls: Controls }): ReactNode {
  useSyncExternalStore(model.subscribe, model.snapshot);
  const { columns, rows } = useSize();
  // The prompt's text in a ref as well as in state: keys that arrive between two renders
  // (typed fast, pasted, sent by a script) each see the text the previous one left.
  const text = useRef("");
  const [value, setShown] = useState("");
  const setValue = (next: string | ((v: string) => string)) => {
    text.current = typeof next === "function" ? next(text.current) : next;
    setShown(text.current);
  };
  const history = useRef<string[]>([]).current;
  const back = useRef(0); // how far up the history Up went (0: the new line)
  const idleInterrupts = useRef(0);
  const [scroll, setScroll] = useState(0);
  const [selected, setSelected] = useState<number | undefined>(undefined);
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());
  const page = Math.max(1, rows - 6);

  useInput((input, key) => {
    const approval = model.approval;
    const ctrlC = key.ctrl && input === "c";
    if (ctrlC || key.escape) {
      if (model.running) {
        controls.cancel();
        return;
      }
      if (key.escape) {
        setSelected(undefined);
        return;
      }
      if (text.current) {
        setValue("");
        return;
      }
      if (idleInterrupts.current >= 1) controls.end();
      else {
        idleInterrupts.current = 1;
        model.notice("(Ctrl-C again, or Ctrl-D, to end the session)");
      }
      return;
    }
    idleInterrupts.current = 0;
    if (approval) {
      const word = input.toLowerCase();
      if (word === "y" || word === "n" || word === "a") controls.answer(word);
      else if (word === "f") model.ask({ ...approval, full: !approval.full });
      return;
    }
    if (key.ctrl && input === "d") {
      if (!text.current && !model.running) controls.end();
      return;
    }
    if (key.pageUp) return setScroll((s) => s + page);
    if (key.pageDown) return setScroll((s) => Math.max(0, s - page));
    if (key.tab) {
      const turns = model.turns();
      if (!turns.length) return;
      const at = turns.findIndex((t) => t.key === selected);
      const next = at < 0 ? turns.length - 1 : at + (key.shift ? -1 : 1);
      setSelected(turns[(next + turns.length) % turns.length]!.key);
      return;
    }
    if (key.ctrl && input === "o") {
      const target = selected ?? model.turns().at(-1)?.key;
      if (target === undefined) return;
      setOpened((o) => {
        const next = new Set(o);
        if (next.has(target)) next.delete(target);
        else next.add(target);
        return next;
      });
      return;
    }
    if (key.upArrow || key.downArrow) {
      const to = Math.min(history.length, Math.max(0, back.current + (key.upArrow ? 1 : -1)));
      back.current = to;
      setValue(to === 0 ? "" : history[history.length - to]!);
      return;
    }
    if ((key.return && key.meta) || (key.ctrl && input === "j") || input === "\n") {
      setValue((v) => `${v}\n`);
      return;
    }
    // Several keys in one read (a paste, a script): line breaks inside are new lines, a final
    // Enter sends.
    const typed = input.length > 1 && input.endsWith("\r") ? input.slice(0, -1) : undefined;
    if (typed !== undefined) setValue((v) => v + typed.replace(/\r\n?/g, "\n"));
    if (key.return || typed !== undefined) {
      const intent = text.current.trim();
      if (!intent) return;
      if (intent === "/help") {
        setValue("");
        setScroll(0);
        model.notice(KEYS.map(([k, what]) => `${k.padEnd(24)} ${what}`).join("\n"));
        return;
      }
      if (model.running) {
        model.notice("a cast is running: Esc or Ctrl-C stops it");
        return;
      }
      setValue("");
      back.current = 0;
      setScroll(0);
      history.push(intent);
      controls.send(intent);
      return;
    }
    if (key.backspace || key.delete) {
      setValue((v) => v.slice(0, -1));
      return;
    }
    if (key.ctrl || key.meta || !input) return;
    setValue((v) => v + input.replace(/\r\n?/g, "\n"));
  });

  return h(
    Box,
    { flexDirection: "column", width: columns, height: Math.max(4, rows - 1) },
    h(
      Box,
      { flexDirection: "column", flexGrow: 1, flexShrink: 1, overflow: "hidden", justifyContent: "flex-end" },
      h(
        Box,
        { flexDirection: "column", flexShrink: 0, marginBottom: -scroll },
        ...model.entries.map((entry, i) =>
          h(EntryView, { key: i, entry, selected, opened, width: columns, model }),
        ),
      ),
    ),
    scroll > 0 ? h(Text, { dimColor: true }, `↓ scrolled up ${scroll} lines (PgDn goes back)`) : null,
    model.approval ? h(ApprovalDialog, { approval: model.approval }) : null,
    h(Prompt, { value, running: model.running }),
    h(StatusLine, { model }),
  );
}
