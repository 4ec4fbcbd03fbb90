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
import { onKey, type Controls } from "./keys.js";
import { EMPTY_PROMPT, type PromptState } from "./prompt-edit.js";
import { Markdown } from "./markdown.js";
import type { ApprovalView, Entry, SessionModel } from "./model.js";
import { oneLine, safeText } from "./text.js";
import { TurnBlock, type BlockProps } from "./turn-block.js";

export { KEYS, type Controls } from "./keys.js";

function EntryView({
  entry,
  selected,
  opened,
  collapsed,
  width,
  model,
}: BlockProps & { entry: Entry }): ReactNode {
  switch (entry.kind) {
    case "intent":
      return h(
        Box,
        { marginTop: 1 },
        h(Text, { bold: true, color: "blue" }, `› ${safeText(entry.text)}`),
      );
    case "turn":
      return h(TurnBlock, { turn: entry.turn, selected, opened, collapsed, width, model });
    case "result":
      return h(
        Box,
        { flexDirection: "column" },
        entry.text ? h(Markdown, { text: entry.text }) : null,
        h(Text, { dimColor: true }, safeText(entry.summary)),
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
    ...approval.deciding.map(([k, v]) => h(Text, { key: k }, h(Text, { bold: true }, `${k}: `), v)),
    h(Text, { dimColor: !approval.full }, `arguments: ${args}`),
    h(
      Text,
      { color: "yellow" },
      "[y] allow once · [a] allow for the session · [n] deny · [f] full arguments",
    ),
  );
}

export function StatusLine({ model }: { model: SessionModel }): ReactNode {
  const s = model.status;
  const cost = model.costUsd === undefined ? "cost unknown" : `$${model.costUsd.toFixed(4)}`;
  const near = model.nearLimits();
  // The wards near their limit on a line of their own: a long status line is cut at its end.
  return h(
    Box,
    { flexDirection: "column" },
    h(
      Text,
      { inverse: true, wrap: "truncate-end" },
      // Each name escaped: a spell's name or a loom's path may hold any character.
      ` ${oneLine(s.spell, 60)} · ${oneLine(s.model, 60)} · ${oneLine(s.entityId, 60)} · turn ${model.turn} · ${model.tokensIn} in / ${model.tokensOut} out · ${cost} · loom ${oneLine(s.loom, 200)} `,
    ),
    near.length ? h(Text, { color: "red", bold: true }, ` ! near limit: ${near.join(", ")}`) : null,
  );
}

/** The prompt's lines, the character under the cursor drawn inverse (a space past a line's end). */
function Prompt({ value, running }: { value: PromptState; running: boolean }): ReactNode {
  const lines = value.text.split("\n");
  let start = 0; // where the line drawn begins in the text
  return h(
    Box,
    { flexDirection: "column" },
    ...lines.map((line, i) => {
      const at = value.cursor - start;
      start += line.length + 1;
      const mark = h(Text, { color: "blue", bold: true }, i === 0 ? "› " : "  ");
      if (at < 0 || at > line.length) return h(Text, { key: i }, mark, safeText(line));
      const under = Array.from(line.slice(at))[0] ?? " ";
      return h(
        Text,
        { key: i },
        mark,
        safeText(line.slice(0, at)),
        h(Text, { inverse: true }, safeText(under)),
        safeText(line.slice(at + under.length)),
      );
    }),
    running ? h(Text, { dimColor: true }, "casting… Esc or Ctrl-C stops it") : null,
  );
}

/**
 * The terminal's size; when it changes, `redraw` (the session's: the screen cleared, Ink's idea
 * of what it shows forgotten) and the UI drawn whole at the new size.
 */
function useSize(redraw?: () => void): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => {
      redraw?.();
      setSize(read());
    };
    stdout.on("resize", onResize);
    return () => void stdout.off("resize", onResize);
  });
  return size;
}

/** A set of turn keys, and a toggle that adds a key, or removes it when it was there. */
function useToggles(): [ReadonlySet<number>, (key: number) => void] {
  const [set, setSet] = useState<ReadonlySet<number>>(new Set());
  const toggle = (key: number) =>
    setSet((old) => {
      const next = new Set(old);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return [set, toggle];
}

/**
 * The entries, their latest at the bottom; `scroll` lines up from there (a negative margin
 * pushes the newest lines below the clipped edge). Only the entries that can reach the screen
 * are drawn: each takes a line at least, so the last `rows + scroll` of them fill it (a session
 * of ten thousand turns draws a screenful, not ten thousand blocks).
 */
function Conversation({
  model,
  scroll,
  rows,
  selected,
  opened,
  collapsed,
  width,
}: {
  model: SessionModel;
  scroll: number;
  rows: number;
  selected: number | undefined;
  opened: ReadonlySet<number>;
  collapsed: ReadonlySet<number>;
  width: number;
}): ReactNode {
  const from = Math.max(0, model.entries.length - (rows + scroll));
  const shown = model.entries.slice(from);
  return h(
    Box,
    {
      flexDirection: "column",
      flexGrow: 1,
      flexShrink: 1,
      overflow: "hidden",
      justifyContent: "flex-end",
    },
    h(
      Box,
      { flexDirection: "column", flexShrink: 0, marginBottom: -scroll },
      from > 0 ? h(Text, { dimColor: true }, `… ${from} earlier entries (PgUp shows them)`) : null,
      ...shown.map((entry, i) =>
        h(EntryView, { key: from + i, entry, selected, opened, collapsed, width, model }),
      ),
    ),
  );
}

export function App({
  model,
  controls,
  redraw,
}: {
  model: SessionModel;
  controls: Controls;
  redraw?: () => void;
}): ReactNode {
  useSyncExternalStore(model.subscribe, model.snapshot);
  const { columns, rows } = useSize(redraw);
  // The prompt in a ref as well as in state: keys between two renders see each other's.
  const prompt = useRef<PromptState>(EMPTY_PROMPT);
  const [value, setShown] = useState<PromptState>(EMPTY_PROMPT);
  const setPrompt = (next: PromptState | ((v: PromptState) => PromptState)) => {
    prompt.current = typeof next === "function" ? next(prompt.current) : next;
    setShown(prompt.current);
  };
  const history = useRef<string[]>([]).current;
  const back = useRef(0); // how far up the history Up went (0: the new line)
  const idleInterrupts = useRef(0);
  const [scroll, setScroll] = useState(0);
  const [selected, setSelected] = useState<number | undefined>(undefined);
  const [opened, toggleOpen] = useToggles();
  const [collapsed, toggleCollapsed] = useToggles();
  const page = Math.max(1, rows - 6);

  useInput((input, key) =>
    onKey(
      {
        model,
        controls,
        prompt: () => prompt.current,
        setPrompt,
        history,
        back,
        idleInterrupts,
        selected,
        setSelected,
        toggleOpen,
        toggleCollapsed,
        scrollBy: (lines) => setScroll((v) => Math.max(0, v + lines)),
        page,
      },
      input,
      key,
    ),
  );

  return h(
    Box,
    { flexDirection: "column", width: columns, height: Math.max(4, rows - 1) },
    h(Conversation, { model, scroll, rows, selected, opened, collapsed, width: columns }),
    scroll > 0 ? h(Text, { dimColor: true }, `↓ scrolled up ${scroll} lines (PgDn)`) : null,
    model.approval ? h(ApprovalDialog, { approval: model.approval }) : null,
    h(Prompt, { value, running: model.running }),
    h(StatusLine, { model }),
  );
}
