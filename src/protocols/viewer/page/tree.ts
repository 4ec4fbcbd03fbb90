/// <reference lib="dom" />
/**
 * One entity as a timeline: its turns as rows (gate calls, a duration bar, tokens, time, cost),
 * forks and children one step in as lanes under the turn they hang from, folds as rows of their
 * own (covered turns marked); an opened turn shows in place, under its row.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import * as f from "./format.js";
import { TurnPanel } from "./turn.js";
import type { FoldRow, TurnRow, ViewerEntity, ViewerRow } from "./types.js";
import { Virtual } from "./virtual.js";
import { useGet } from "./use-get.js";

const INDENT = 18;

function Fold({ row }: { row: FoldRow }): VNode {
  return html`<div
    class="row fold"
    data-fold=${row.id}
    style=${`padding-left:${row.depth * INDENT + 4}px`}
    title=${row.summary}
  >
    <b class="tag fold">fold</b> turns ${row.from}–${row.to} (${row.strategy}):
    ${f.short(row.summary, 140)}
  </div>`;
}

/** A thin line per level of depth: a child's or a fork's turns read as a lane of their own. */
const lanes = (depth: number) =>
  depth
    ? `background-image:repeating-linear-gradient(to right,#9aa6bd 0 2px,transparent 2px ${INDENT}px);background-size:${depth * INDENT}px 100%;background-repeat:no-repeat;background-position:6px 0`
    : "";

function Turn({
  row,
  base,
  open,
  maxMs,
}: {
  row: TurnRow;
  base: string;
  open: string | undefined;
  maxMs: number;
}): VNode {
  const isOpen = row.id === open;
  const cls = ["row", "tl", row.err ? "err" : "", row.folded ? "folded" : "", isOpen ? "open" : ""];
  const width = maxMs > 0 ? Math.max(1, (100 * row.ms) / maxMs) : 0;
  return html`<a
    class=${cls.join(" ")}
    href=${isOpen ? base : `${base}/t/${encodeURIComponent(row.id)}`}
    aria-expanded=${isOpen ? "true" : "false"}
    data-turn-id=${row.id}
    data-branch=${row.branch ?? ""}
    style=${`padding-left:${row.depth * INDENT + 4}px;${lanes(row.depth)}`}
  >
    ${row.branch ? html`<b class=${`tag ${row.branch}`}>${row.branch}</b> ` : ""}
    <span class="seq">#${row.seq}</span>
    <span class="gates"
      >${row.gates.length ? row.gates.map((g) => html`<span class="chip">${g}</span>`) : html`<span class="meta">no gates</span>`}</span
    >
    ${row.err ? html`<b class="tag err">error</b>` : ""}
    ${row.folded ? html`<span class="tag folded">folded</span>` : ""}
    ${row.end ? html`<span class="end">→ ${row.end}</span>` : ""}
    <span class="dur" title=${`${row.ms} ms`} aria-hidden="true"
      ><span class="dur-bar" style=${`width:${width}%`}></span
    ></span>
    <span class="meta tl-meta"
      >${`${f.tokens(row.tokens)} tok · ${f.ms(row.ms)}`}${
        row.cost === null
          ? ""
          : html`${" · "}<span title=${f.exact(row.cost)}>${f.usd(row.cost)}</span>`
      }</span
    >
  </a>`;
}

export function EntityTree(props: {
  src: string;
  entity: string;
  turn?: string;
  version: number;
}): VNode {
  const { src, entity, turn, version } = props;
  const [total, setTotal] = useState<number | null>(null);
  const [maxMs, setMaxMs] = useState(0);
  const head = useGet<{ entity: ViewerEntity }>(
    `/api/l/${src}/e/${encodeURIComponent(entity)}/rows?offset=0&limit=1`,
    version,
  );
  const e = head?.entity;
  const base = `#/l/${src}/e/${encodeURIComponent(entity)}`;
  const onPage = (rows: ViewerRow[]) => {
    let m = 0;
    for (const r of rows) if (r.kind === "turn" && r.ms > m) m = r.ms;
    setMaxMs((old) => Math.max(old, m));
  };
  return html`<section class="timeline">
    <h2>
      <a href=${`#/l/${src}`}>entities</a> › ${entity}
      ${e?.kind === "fork" ? html` <a class="compare" href=${`#/l/${src}/c/${encodeURIComponent(entity)}`}>side by side with its original</a>` : ""}
    </h2>
    ${e ? html`<p class="intent-line">${f.short(e.intent, 300)} · ${f.status(e.end)} · ${e.turns} turns · ${f.tokens(e.tokens)} tokens · ${f.ms(e.ms)}${e.cost === null ? "" : ` · ${f.usd(e.cost)}`} · ${total ?? "…"} rows</p>` : ""}
    <p class="hint">
      Each turn a row: its gate calls, then its duration as a bar (to scale within this tree),
      tokens, time and cost. Forks and children hang one step in, under the turn they come from.
      Open a turn to read it in place.
    </p>
    <${Virtual}
      path=${`/api/l/${src}/e/${encodeURIComponent(entity)}/rows`}
      version=${version}
      onTotal=${setTotal}
      onPage=${onPage}
      isOpen=${(row: ViewerRow) => row.kind === "turn" && row.id === turn}
      renderOpen=${(row: ViewerRow) =>
        html`<div style=${`margin-left:${(row.kind === "turn" ? row.depth : 0) * INDENT + 12}px`}>
          <${TurnPanel} src=${src} turn=${row.id} version=${version} intent=${e?.intent ?? ""} />
        </div>`}
      render=${(row: ViewerRow) =>
        row.kind === "fold"
          ? html`<${Fold} row=${row} />`
          : html`<${Turn} row=${row} base=${base} open=${turn} maxMs=${maxMs} />`}
    />
  </section>`;
}
