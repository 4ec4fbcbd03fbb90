/**
 * An eval run's table as `spell view` shows it: results.jsonl (one line per case and repeat)
 * and summary.json, read loosely — the names of the fields are taken in the spellings an eval
 * run may write (case / case_id / name, repeat / attempt, pass / passed / ok, …), and a line
 * that is not an object is skipped. A row names the cast's entity when the line does, so the
 * page links the cell to it in the run's loom.
 */

export interface EvalRow {
  case: string;
  repeat: number | null;
  pass: boolean | null;
  /** The row's verdict: an errored cast (no verdict) is "error", not a fail. */
  status: "pass" | "fail" | "error" | null;
  score: number | null;
  reason: string;
  entity: string | null;
  turn: string | null;
  /** What was cast: `spell × llm` when the row names them ("" when it does not). */
  target: string;
  cost: number | null;
  latencyMs: number | null;
  tokens: number | null;
  turns: number | null;
}

export interface EvalTable {
  summary: Record<string, unknown>;
  rows: EvalRow[];
}

const pick = (o: Record<string, unknown>, names: string[]): unknown =>
  names.map((n) => o[n]).find((v) => v !== undefined && v !== null);

function text(v: unknown): string {
  return v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v);
}

function row(o: Record<string, unknown>): EvalRow {
  const cast = (o["cast"] ?? o["result"]) as Record<string, unknown> | undefined;
  const nested = cast && typeof cast === "object" ? cast : {};
  const pass = pick(o, ["pass", "passed", "ok", "success"]);
  const status = pick(o, ["status", "outcome"]);
  const score = pick(o, ["score"]);
  const repeat = pick(o, ["repeat", "attempt", "run", "iteration"]);
  const entity =
    pick(o, ["entity_id", "entity", "entityId"]) ??
    pick(nested, ["entity_id", "entity", "entityId"]);
  const turn =
    pick(o, ["turn_id", "last_turn_id", "turnId"]) ?? pick(nested, ["turn_id", "last_turn_id"]);
  const num = (names: string[]) => {
    const v = pick(o, names) ?? pick(nested, names);
    return typeof v === "number" && Number.isFinite(v) ? v : null;
  };
  const verdict =
    typeof pass === "boolean"
      ? pass
      : status === "pass" || status === "passed"
        ? true
        : status === "fail" || status === "failed"
          ? false
          : null;
  const errored = status === "error" || status === "errored";
  const target = [text(pick(o, ["spell", "target"])), text(pick(o, ["llm", "model"]))]
    .filter(Boolean)
    .join(" × ");
  return {
    case: text(pick(o, ["case", "case_id", "caseId", "name", "id", "description"])),
    repeat: typeof repeat === "number" ? repeat : null,
    pass: verdict,
    status: errored ? "error" : verdict === null ? null : verdict ? "pass" : "fail",
    score: typeof score === "number" ? score : null,
    reason: text(pick(o, ["reason", "error", "message"])),
    entity: typeof entity === "string" ? entity : null,
    turn: typeof turn === "string" ? turn : null,
    target,
    cost: num(["cost_usd", "cost"]),
    latencyMs: num(["latency_ms", "duration_ms", "latency"]),
    tokens: num(["tokens"]),
    turns: num(["turns"]),
  };
}

/**
 * The run's table, its files read by `read` (by name: the caller knows where the run is and
 * reads nothing outside it); null when results.jsonl cannot be read.
 */
export function readEvalRun(
  read: (name: "results.jsonl" | "summary.json") => string | null,
): EvalTable | null {
  const results = read("results.jsonl");
  if (results === null) return null;
  const rows: EvalRow[] = [];
  for (const line of results.split("\n")) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value && typeof value === "object" && !Array.isArray(value))
        rows.push(row(value as Record<string, unknown>));
    } catch {
      // a line that is not JSON (a run cut off) is skipped
    }
  }
  let summary: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(read("summary.json") ?? "{}");
    if (value && typeof value === "object" && !Array.isArray(value))
      summary = value as Record<string, unknown>;
  } catch {
    summary = {};
  }
  return { summary, rows };
}
