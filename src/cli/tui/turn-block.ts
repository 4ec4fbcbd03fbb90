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
import { codeOf, duration, fold, oneLine, safeText } from "./text.js";

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
    ...turn.calls.map((call, i) => h(CallLine, { key: `c${i}`, call, open, width })),
    ...turn.children.map((child) =>
      h(TurnBlock, { key: child.key, turn: child, selected, opened, width, model }),
    ),
  );
}

/** A code or bash turn's code and output (from the loom), folded unless the turn is open. */
function WorkView({
  work,
  open,
}: {
  work: { code: string; output: string };
  open: boolean;
}): ReactNode {
  const code = open ? { shown: safeText(work.code), more: "" } : fold(work.code, 6, 600);
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
          `${call.isError ? "✗" : "●"} ${call.gate}`,
        ),
      ),
      h(
        Text,
        { wrap: open ? "wrap" : "truncate-end" },
        open ? safeText(args) : oneLine(args, Math.max(20, width - call.gate.length - 24)),
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
          h(Text, { color: "cyan" }, open ? safeText(code) : fold(code, 6, 600).shown),
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
    ? { shown: safeText(text), more: "" }
    : fold(text, RESULT_LINES, RESULT_CHARS);
  return h(
    Box,
    { paddingLeft: 2, flexDirection: "column" },
    h(Box, null, h(Text, null, "→ "), h(Text, color ? { color } : {}, result.shown)),
    result.more
      ? h(Text, { dimColor: true }, `  … ${result.more} (Tab selects the turn, Ctrl-O opens it)`)
      : null,
  );
}
