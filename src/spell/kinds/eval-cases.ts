/**
 * The rows of an eval's `cases: { $file: … }`: JSONL (one JSON object a line), CSV (a header
 * row; columns `name`, `intent`, `expect` — JSON — and every other column a var) or YAML (a
 * sequence). Each row keeps its position in its own file, so a bad row is reported at
 * file:line:col there.
 */
import { readFileSync } from "node:fs";
import { isSeq, LineCounter, parseDocument } from "yaml";
import {
  ConfigError,
  errorMessage,
  unreadableBecause,
  type SourcePosition,
} from "../../core/errors.js";

export interface CaseRow {
  value: unknown;
  position: SourcePosition;
}

export function readCaseRows(file: string): CaseRow[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      "eval_cases",
      `cannot read cases file ${file}: ${unreadableBecause(err)}`,
    );
  }
  if (file.endsWith(".jsonl")) return jsonlRows(file, text);
  if (file.endsWith(".csv")) return csvRows(file, text);
  return yamlRows(file, text);
}

function jsonlRows(file: string, text: string): CaseRow[] {
  const rows: CaseRow[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const position = { file, line: i + 1, col: 1 };
    try {
      rows.push({ value: JSON.parse(line) as unknown, position });
    } catch (err) {
      throw new ConfigError("eval_cases", `not a JSON line: ${errorMessage(err)}`, position);
    }
  });
  return rows;
}

function yamlRows(file: string, text: string): CaseRow[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new ConfigError("eval_cases", e.message.split("\n")[0] ?? e.message, {
      file,
      ...lines.linePos(e.pos[0]),
    });
  }
  const value = doc.toJS() as unknown;
  if (!isSeq(doc.contents) || !Array.isArray(value))
    throw new ConfigError("eval_cases", "a YAML cases file is a sequence of cases", {
      file,
      line: 1,
      col: 1,
    });
  const items = doc.contents.items;
  return value.map((v: unknown, i) => ({
    value: v,
    position: { file, ...lines.linePos((items[i] as { range?: number[] })?.range?.[0] ?? 0) },
  }));
}

/** RFC 4180: fields split by commas, quoted with ", a doubled "" inside quotes is one ". */
export function parseCsv(text: string): { cells: string[]; line: number }[] {
  const rows: { cells: string[]; line: number }[] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") {
        i++;
        line++;
      }
      rows.push({ cells: [...row, field], line: start });
      row = [];
      field = "";
      start = line;
    } else field += c;
  }
  if (field !== "" || row.length) rows.push({ cells: [...row, field], line: start });
  return rows;
}

function csvRows(file: string, text: string): CaseRow[] {
  const rows = parseCsv(text);
  const [header, ...body] = rows;
  if (!header?.cells.includes("intent"))
    throw new ConfigError(
      "eval_cases",
      "a CSV cases file needs a header row with an intent column",
      {
        file,
        line: 1,
        col: 1,
      },
    );
  return body
    .filter(({ cells }) => cells.some((c) => c !== ""))
    .map(({ cells, line }) => {
      const position = { file, line, col: 1 };
      const row: Record<string, unknown> = {};
      const vars: Record<string, string> = {};
      header.cells.forEach((name, j) => {
        const cell = cells[j] ?? "";
        if (name === "intent" || name === "name") row[name] = cell;
        else if (name === "expect") {
          if (cell === "") return;
          try {
            row["expect"] = JSON.parse(cell) as unknown;
          } catch (err) {
            throw new ConfigError("eval_cases", `expect: not JSON: ${errorMessage(err)}`, position);
          }
        } else vars[name] = cell;
      });
      if (Object.keys(vars).length) row["vars"] = vars;
      return { value: row, position };
    });
}
