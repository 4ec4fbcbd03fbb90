/// <reference lib="dom" />
/**
 * A list of any length that draws only the rows in sight: rows of one height, fetched a page at
 * a time as they scroll into view, fetched again when `version` changes (the loom grew). One row
 * may be open: what it shows lies under it, in place, and the rows below move down by its height.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { get, type Page } from "./api.js";
import { failureText, GetFailed } from "./use-get.js";

const PAGE = 200;
export const ROW = 26;

export interface VirtualProps<T> {
  /** The API path; `?offset=…&limit=…` is added. */
  path: string;
  version: number;
  render: (row: T, index: number) => VNode;
  /** The row opened in place: what it shows under it (any height) pushes the rows below down. */
  isOpen?: (row: T) => boolean;
  renderOpen?: (row: T) => VNode;
  /** Told the rows of each page that arrives. */
  onPage?: (rows: T[]) => void;
  /** Told the total whenever a page arrives. */
  onTotal?: (total: number) => void;
  height?: string;
}

/** The pages of the list at hand, and how to ask for those a range of rows lies on. */
function usePages<T>(props: VirtualProps<T>) {
  const [total, setTotal] = useState(0);
  const [pages, setPages] = useState(new Map<number, T[]>());
  const [failed, setFailed] = useState<GetFailed | undefined>(undefined);
  const asked = useRef(new Set<number>());
  /** The pages that arrived for this path (a later failure of one of them is a failed poll). */
  const got = useRef(new Set<number>());
  const current = useRef(props.path);
  useEffect(() => {
    current.current = props.path;
    asked.current = new Set();
    got.current = new Set();
    setPages(new Map());
    setFailed(undefined);
  }, [props.path]);
  // The loom grew: the rows in sight are asked again, the old ones shown until they come.
  useEffect(() => {
    asked.current = new Set();
  }, [props.version]);
  const load = (first: number, last: number) => {
    for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) {
      if (asked.current.has(p)) continue;
      asked.current.add(p);
      const sep = props.path.includes("?") ? "&" : "?";
      const path = props.path;
      const asking = `${path}${sep}offset=${p * PAGE}&limit=${PAGE}`;
      get<Page<T>>(asking).then(
        (page) => {
          if (current.current !== path) return; // asked for a list no longer shown
          setTotal(page.total);
          props.onPage?.(page.rows);
          props.onTotal?.(page.total);
          got.current.add(p);
          setPages((old) => new Map(old).set(p, page.rows));
        },
        (err: unknown) => {
          if (current.current !== path) return;
          // Asked again with the next version; a page already shown stays (a failed poll).
          asked.current.delete(p);
          if (!got.current.has(p)) setFailed(new GetFailed(failureText(err), asking));
        },
      );
    }
  };
  return { total, pages, load, failed };
}

/**
 * The open row (one at most, among the pages at hand), the height of what it shows under it
 * (measured as it changes), and the ref for that element. Opened from elsewhere (a link), the
 * row is brought into sight.
 */
function useOpenRow<T>(
  pages: Map<number, T[]>,
  isOpen: ((row: T) => boolean) | undefined,
  box: { current: HTMLDivElement | null },
  view: number,
) {
  let openAt = -1;
  if (isOpen)
    for (const [p, list] of pages) {
      const j = list.findIndex(isOpen);
      if (j >= 0) {
        openAt = p * PAGE + j;
        break;
      }
    }
  const [extra, setExtra] = useState(0);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = panel.current;
    if (!el) return undefined;
    const measure = () => setExtra(el.offsetHeight);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    const y = openAt * ROW;
    if (box.current && (y < box.current.scrollTop || y > box.current.scrollTop + view - ROW))
      box.current.scrollTop = Math.max(0, y - 2 * ROW);
    return () => ro.disconnect();
  }, [openAt]);
  return { openAt, gap: openAt >= 0 ? extra : 0, panel };
}

export function Virtual<T>(props: VirtualProps<T>): VNode {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [view, setView] = useState(600);
  useEffect(() => {
    if (box.current) setView(box.current.clientHeight || 600);
  }, []);
  const { total, pages, load, failed } = usePages(props);
  const { openAt, gap, panel } = useOpenRow(pages, props.isOpen, box, view);
  const below = (openAt + 1) * ROW;
  const pos = (i: number) => i * ROW + (openAt >= 0 && i > openAt ? gap : 0);
  const indexAt = (y: number) =>
    Math.floor((openAt >= 0 && y > below ? Math.max(below, y - gap) : y) / ROW);
  const first = Math.max(0, indexAt(top) - 20);
  const last = Math.min(Math.max(total, 1), indexAt(top + view) + 1 + 20);
  useEffect(() => load(first, last), [first, last, pages, props.path, props.version]);
  if (failed) throw failed; // shown by the view's boundary (main.ts)
  const rows: VNode[] = [];
  for (let i = first; i < Math.min(last, total); i++) {
    const row = pages.get(Math.floor(i / PAGE))?.[i % PAGE];
    if (row === undefined) continue;
    rows.push(
      html`<div class="vrow" style=${`top:${pos(i)}px;height:${ROW}px`} key=${i}>
        ${props.render(row, i)}
      </div>`,
    );
  }
  const open = openAt >= 0 ? pages.get(Math.floor(openAt / PAGE))?.[openAt % PAGE] : undefined;
  return html`<div
    class="virtual"
    ref=${box}
    style=${`height:${props.height ?? "calc(100vh - 140px)"}`}
    onScroll=${(e: Event) => setTop((e.currentTarget as HTMLElement).scrollTop)}
  >
    <div style=${`height:${total * ROW + gap}px;position:relative`}>
      ${rows}
      ${
        open !== undefined && props.renderOpen
          ? html`<div class="vopen" ref=${panel} key=${`open-${openAt}`} style=${`top:${below}px`}>
              ${props.renderOpen(open)}
            </div>`
          : ""
      }
    </div>
  </div>`;
}
