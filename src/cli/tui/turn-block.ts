/**
 * A turn of the terminal UI (issue 42) as a block: its header (number, gates, duration, tokens,
 * outcome, error; a spinner while it runs), its streamed text, the code a code or bash turn ran
 * with its output, each gate call with its arguments and result (folded unless the turn is
 * opened), and its children's turns nested under it.
 */
import { Box, Text } from "ink";
import { createElement as h, useEffect, useState, type ReactNode } from "react";
import { Markdown } from "./markdown.js";
import type { SessionModel } from "./model.js";
import type { CallView, TurnView } from "./types.js";
import { codeOf, duration, fold, oneLine, WHOLE_CHARS, WHOLE_LINES } from "./text.js";

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

/** What every block of the conversation is drawn with: the session, which turns are selected, opened or folded, and the width. */
export interface BlockProps {
  model: SessionModel;
  selected: number | undefined;
  opened: ReadonlySet<number>;
  /** Turns shown as their header line only. */
  collapsed: ReadonlySet<number>;
  width: number;
}

export function TurnBlock({
  turn,
  selected,
  opened,
  collapsed,
  width,
  model,
}: BlockProps & { turn: TurnView }): ReactNode {
  const open = opened.has(turn.key);
  const shut = collapsed.has(turn.key);
  const end = turn.end;
  const head = `${turn.depth > 0 ? `↳ [${oneLine(turn.entityId, 40)}] ` : ""}turn ${turn.sequence} · ${gateNames(turn)}`;
  const failed = turn.calls.filter((c) => c.isError).length;
  const tail = end
    ? ` · ${duration(end.durationMs)} · ${end.tokensIn} in / ${end.tokensOut} out${end.outcome === "continue" ? "" : ` → ${end.outcome}`}`
    : "";
  const hidden = shut ? hiddenOf(turn) : "";
  const running = !end && !turn.calls.some((c) => c.result === undefined);
  const work = shut ? undefined : (model.work(turn) ?? runningWork(turn));
  const mark = shut ? "▸" : open ? "▼" : "▾";
  const header = h(
    Box,
    null,
    h(
      Text,
      {
        inverse: selected === turn.key,
        dimColor: selected !== turn.key,
        bold: !!end?.error,
        wrap: "truncate-end",
      },
      `${mark} ${head}${tail}${hidden}`,
    ),
    end?.error ? h(Text, { color: "red" }, ` ✗ ${oneLine(end.error, 100)}`) : null,
    !end?.error && failed ? h(Text, { color: "red" }, ` ✗ ${failed} failed`) : null,
    running ? h(Text, null, " ") : null,
    running ? h(Spinner, { since: turn.startedAt }) : null,
  );
  if (shut) return h(Box, { flexDirection: "column", marginLeft: turn.depth > 0 ? 2 : 0 }, header);
  return h(
    Box,
    { flexDirection: "column", marginLeft: turn.depth > 0 ? 2 : 0 },
    header,
    turn.text ? h(Box, { paddingLeft: 2 }, h(Markdown, { text: turn.text })) : null,
    work ? h(WorkView, { work, open }) : null,
    ...turn.calls.map((call, i) => h(CallLine, { key: `c${i}`, call, open, width })),
    ...turn.children.map((child) =>
      h(TurnBlock, { key: child.key, turn: child, selected, opened, collapsed, width, model }),
    ),
  );
}

/** The gates a turn called, each once, with how many times: `read ×3, write`. */
function gateNames(turn: TurnView): string {
  if (!turn.calls.length) return "no gates";
  const counts = new Map<string, number>();
  for (const c of turn.calls) counts.set(c.gate, (counts.get(c.gate) ?? 0) + 1);
  const names = [...counts].map(([g, n]) => (n > 1 ? `${g} ×${n}` : g)).join(", ");
  return oneLine(names, 120);
}

/** What a collapsed turn hides, said on its header line. */
function hiddenOf(turn: TurnView): string {
  const parts: string[] = [];
  if (turn.text) parts.push("text");
  if (turn.calls.length)
    parts.push(`${turn.calls.length} call${turn.calls.length === 1 ? "" : "s"}`);
  if (turn.children.length)
    parts.push(`${turn.children.length} child turn${turn.children.length === 1 ? "" : "s"}`);
  return parts.length ? ` · (${parts.join(", ")} hidden)` : "";
}

/** The code or command a turn runs now (from its reply's tool calls), while it runs. */
function runningWork(turn: TurnView): { code: string; output: string } | undefined {
  return turn.code === undefined ? undefined : { code: turn.code, output: "" };
}

/** A code or bash turn's code and output (from the loom), folded unless the turn is open. */
function WorkView({
  work,
  open,
}: {
  work: { code: string; output: string };
  open: boolean;
}): ReactNode {
  const code = open ? fold(work.code, WHOLE_LINES, WHOLE_CHARS) : fold(work.code, 6, 600);
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 2 },
    h(Text, { color: "cyan" }, code.shown),
    code.more ? h(Text, { dimColor: true }, `  … ${code.more}`) : null,
    work.output ? h(Result, { text: work.output, open }) : null,
  );
}

/** One gate call: the gate, its arguments, a spinner while it runs, then its result. */
function CallLine({
  call,
  open,
  width,
}: {
  call: CallView;
  open: boolean;
  width: number;
}): ReactNode {
  const code = codeOf(call.args);
  const args = code === undefined ? call.args : "";
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 2 },
    h(
      Box,
      null,
      h(
        Box,
        { flexShrink: 0, marginRight: 1 },
        h(
          Text,
          { color: call.isError ? "red" : "green" },
          `${call.isError ? "✗" : "●"} ${oneLine(call.gate, 60)}`,
        ),
      ),
      h(
        Text,
        { wrap: open ? "wrap" : "truncate-end" },
        open
          ? fold(args, WHOLE_LINES, WHOLE_CHARS).shown
          : oneLine(args, Math.max(20, width - call.gate.length - 24)),
      ),
      h(
        Box,
        { flexShrink: 0, marginLeft: 1 },
        call.result === undefined
          ? h(Spinner, { since: call.startedAt })
          : h(Text, { dimColor: true }, duration(call.durationMs ?? 0)),
      ),
    ),
    code !== undefined
      ? h(
          Box,
          { paddingLeft: 2 },
          h(
            Text,
            { color: "cyan" },
            (open ? fold(code, WHOLE_LINES, WHOLE_CHARS) : fold(code, 6, 600)).shown,
          ),
        )
      : null,
    call.result === undefined
      ? null
      : h(Result, { text: call.result, open, ...(call.isError ? { color: "red" } : {}) }),
  );
}

/** A result or an output: `→` and the first lines, the rest counted, unless the turn is open. */
function Result({ text, open, color }: { text: string; open: boolean; color?: string }): ReactNode {
  const result = open
    ? fold(text, WHOLE_LINES, WHOLE_CHARS)
    : fold(text, RESULT_LINES, RESULT_CHARS);
  return h(
    Box,
    { paddingLeft: 2, flexDirection: "column" },
    h(Box, null, h(Text, null, "→ "), h(Text, color ? { color } : {}, result.shown)),
    result.more
      ? h(
          Text,
          { dimColor: true },
          open
            ? `  … ${result.more} (spell loom thread shows it whole)`
            : `  … ${result.more} (Tab selects the turn, Ctrl-O opens it)`,
        )
      : null,
  );
}
