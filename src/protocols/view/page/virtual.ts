/// <reference lib="dom" />
/**
 * A list of any length that draws only the rows in sight: rows of one height, fetched a page at
 * a time as they scroll into view, fetched again when `version` changes (the loom grew).
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { get, type Page } from "./api.js";

const PAGE = 200;
export const ROW = 26;

export interface VirtualProps<T> {
  /** The API path; `?offset=…&limit=…` is added. */
  path: string;
  version: number;
  render: (row: T, index: number) => VNode;
  /** Told the total whenever a page arrives. */
  onTotal?: (total: number) => void;
  height?: string;
}

export function Virtual<T>(props: VirtualProps<T>): VNode {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [view, setView] = useState(600);
  const [total, setTotal] = useState(0);
  const [pages, setPages] = useState(new Map<number, T[]>());
  const asked = useRef(new Set<number>());
  useEffect(() => {
    asked.current = new Set();
    setPages(new Map());
  }, [props.path]);
  // The loom grew: the rows in sight are asked again, the old ones shown until they come.
  useEffect(() => {
    asked.current = new Set();
  }, [props.version]);
  useEffect(() => {
    if (box.current) setView(box.current.clientHeight || 600);
  }, []);
  const first = Math.max(0, Math.floor(top / ROW) - 20);
  const last = Math.min(Math.max(total, 1), Math.ceil((top + view) / ROW) + 20);
  useEffect(() => {
    for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) {
      if (asked.current.has(p)) continue;
      asked.current.add(p);
      const sep = props.path.includes("?") ? "&" : "?";
      void get<Page<T>>(`${props.path}${sep}offset=${p * PAGE}&limit=${PAGE}`).then((page) => {
        setTotal(page.total);
        props.onTotal?.(page.total);
        setPages((old) => new Map(old).set(p, page.rows));
      });
    }
  }, [first, last, pages, props.path, props.version]);
  const rows: VNode[] = [];
  for (let i = first; i < Math.min(last, total); i++) {
    const row = pages.get(Math.floor(i / PAGE))?.[i % PAGE];
    if (row === undefined) continue;
    rows.push(
      html`<div class="vrow" style=${`top:${i * ROW}px;height:${ROW}px`} key=${i}>
        ${props.render(row, i)}
      </div>`,
    );
  }
  return html`<div
    class="virtual"
    ref=${box}
    style=${`height:${props.height ?? "calc(100vh - 140px)"}`}
    onScroll=${(e: Event) => setTop((e.currentTarget as HTMLElement).scrollTop)}
  >
    <div style=${`height:${total * ROW}px;position:relative`}>${rows}</div>
  </div>`;
}
