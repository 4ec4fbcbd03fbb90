import { readFileSync } from "node:fs";
import { isSeq, LineCounter, parseDocument } from "yaml";
import { ConfigError } from "../core/errors.js";

/** One case of a tests.yaml-format suite (see docs/design/CONFORMANCE.md). */
export interface ConformanceCase {
  rule?: string;
  name?: string;
  description?: string;
  skip?: string;
  setup?: Record<string, unknown>;
  action?: Record<string, unknown> | Record<string, unknown>[];
  expect?: Record<string, unknown>;
  /** Where the case starts, for messages. */
  location: string;
}

export interface CaseResult {
  rule: string;
  name: string;
  status: "pass" | "fail" | "skip";
  message: string;
  location: string;
  /** Not failures, but likely mistakes in the case (printed with it). */
  warnings?: string[];
}

const CASE_KEYS = new Set(["rule", "name", "description", "skip", "setup", "action", "expect"]);

/** Reads a suite: a YAML sequence of cases (a leading `---` is allowed). */
export function loadSuite(file: string, text = readFileSync(file, "utf8")): ConformanceCase[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    const { line, col } = lines.linePos(e.pos[0]);
    throw new ConfigError("yaml_syntax", e.message.split("\n")[0] ?? e.message, {
      file,
      line,
      col,
    });
  }
  const items = isSeq(doc.contents) ? doc.contents.items : null;
  const value = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  if (!items || !Array.isArray(value)) {
    throw new ConfigError("suite_not_sequence", "a conformance suite is a YAML sequence of cases", {
      file,
      line: 1,
      col: 1,
    });
  }
  return value.map((raw: unknown, i) => {
    const { line } = lines.linePos(items[i]?.range?.[0] ?? 0);
    return toCase(raw, `${file}:${line}`);
  });
}

export function toCase(raw: unknown, location: string): ConformanceCase {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(
      "bad_case",
      `${location}: a case is a mapping with setup, action and expect`,
    );
  }
  for (const key of Object.keys(raw)) {
    if (!CASE_KEYS.has(key))
      throw new ConfigError("bad_case", `${location}: unsupported case key: ${key}`);
  }
  return { ...(raw as Omit<ConformanceCase, "location">), location };
}
