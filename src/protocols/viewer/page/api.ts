/// <reference lib="dom" />
/**
 * How the page asks for data: the server's API, or — in a page written by `spell loom view
 * --out` — the answers embedded in it (lists paged here, as the server would).
 */
import { queryEntities } from "../entity-query.js";
import type { ViewerEntity } from "./types.js";

const embedded = document.getElementById("spell-data");
const answers: Record<string, unknown> | null = embedded
  ? (JSON.parse(embedded.textContent ?? "{}") as Record<string, unknown>)
  : null;

/** True in a page that holds its own data (no server to poll). */
export const isStatic = answers !== null;

export interface Page<T> {
  total: number;
  offset: number;
  rows: T[];
}

export async function get<T>(path: string): Promise<T> {
  if (answers) return fromEmbedded(path) as T;
  const res = await fetch(path, { headers: { accept: "application/json" } });
  if (!res.ok) {
    // The server's error is JSON ({ error: { message } }); a proxy's or a crash's may not be.
    const body = (await res.json().catch(() => undefined)) as
      { error?: { message?: string } } | undefined;
    throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`.trim());
  }
  return (await res.json()) as T;
}

function fromEmbedded(path: string): unknown {
  const [base, query = ""] = path.split("?");
  const value = answers![base!];
  if (value === undefined) throw new Error(`not in this page: ${base}`);
  const params = new URLSearchParams(query);
  let list = value as Page<unknown>;
  if (!params.has("offset") || !Array.isArray(list.rows)) return value;
  if (base!.endsWith("/entities")) {
    const rows = queryEntities(list.rows as ViewerEntity[], Object.fromEntries(params));
    list = { ...list, total: rows.length, rows };
  }
  const offset = Number(params.get("offset"));
  const limit = Number(params.get("limit") ?? 200);
  return { ...list, offset, rows: list.rows.slice(offset, offset + limit) };
}
