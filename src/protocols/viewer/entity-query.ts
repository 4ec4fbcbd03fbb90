/**
 * A loom's entities searched, filtered and sorted for the viewer's list: `q` (words the intent
 * or the id contains, case ignored; plain text, no pattern), `status` (open, ended, truncated,
 * error), `minReward`, `maxCost`, `sort` (a column) and `dir` (asc, desc). Used by the server
 * and by a saved page (which pages through its embedded list itself). Unknown values are ignored.
 *
 * The words are matched, and the intents sorted, as the page shows them: redacted (the server
 * gives `redact`) — else a search for a secret's first letters, or the order of a sort, would
 * tell what the answers hide.
 */
import type { ViewerEntity } from "../../loom/viewer/index.js";

export type EntityQuery = Partial<
  Record<"q" | "status" | "minReward" | "maxCost" | "sort" | "dir", string>
>;

type Key = (e: ViewerEntity, shown: (e: ViewerEntity) => string) => number | string;

const SORTS: Record<string, Key> = {
  intent: (e, shown) => shown(e),
  status: (e) => e.end ?? "",
  turns: (e) => e.turns,
  tokens: (e) => e.tokens,
  cost: (e) => e.cost ?? -1,
  reward: (e) => e.reward ?? Number.NEGATIVE_INFINITY,
  started: (e) => e.started,
  time: (e) => e.ms,
};

export const SORT_COLUMNS = Object.keys(SORTS);

function statusOf(e: ViewerEntity, status: string): boolean {
  switch (status) {
    case "open":
      return e.end === null;
    case "ended":
      return e.end !== null && !e.end.startsWith("truncated");
    case "truncated":
      return e.end?.startsWith("truncated") ?? false;
    case "error":
      return e.err;
    default:
      return true;
  }
}

const number = (v: string | undefined) => {
  if (v === undefined || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

export function queryEntities(
  all: Iterable<ViewerEntity>,
  given: EntityQuery,
  redact: (text: string) => string = (t) => t,
): ViewerEntity[] {
  const seen = new Map<ViewerEntity, string>();
  const shown = (e: ViewerEntity) => {
    let text = seen.get(e);
    if (text === undefined) seen.set(e, (text = redact(e.intent || e.id).toLowerCase()));
    return text;
  };
  // A repeated parameter arrives as a list: only strings are read.
  const q = Object.fromEntries(
    Object.entries(given).filter(([, v]) => typeof v === "string"),
  ) as EntityQuery;
  const words = (q.q ?? "").toLowerCase().split(/\s+/).filter(Boolean).slice(0, 20);
  const minReward = number(q.minReward);
  const maxCost = number(q.maxCost);
  const out: ViewerEntity[] = [];
  for (const e of all) {
    if (q.status && !statusOf(e, q.status)) continue;
    if (minReward !== undefined && (e.reward === null || e.reward < minReward)) continue;
    if (maxCost !== undefined && e.cost !== null && e.cost > maxCost) continue;
    if (words.length) {
      const text = `${shown(e)}\n${e.id.toLowerCase()}`;
      if (!words.every((w) => text.includes(w))) continue;
    }
    out.push(e);
  }
  // Own columns only: `__proto__` or `constructor` names no column.
  const key = q.sort && Object.hasOwn(SORTS, q.sort) ? SORTS[q.sort] : undefined;
  if (key) {
    const sign = q.dir === "desc" ? -1 : 1;
    out.sort((a, b) => {
      const x = key(a, shown);
      const y = key(b, shown);
      return (x < y ? -1 : x > y ? 1 : 0) * sign;
    });
  }
  return out;
}
