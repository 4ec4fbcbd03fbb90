/// <reference lib="dom" />
/**
 * One entity: its turns as a tree (forks and children one step in, under the turn they hang
 * from; folds as rows of their own, covered turns marked), and the opened turn beside it.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import * as f from "./format.js";
import { TurnPanel } from "./turn.js";
import type { FoldRow, TurnRow, ViewEntity, ViewRow } from "./types.js";
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

function Turn({
  row,
  base,
  open,
}: {
  row: TurnRow;
  base: string;
  open: string | undefined;
}): VNode {
  const cls = [
    "row",
    row.err ? "err" : "",
    row.folded ? "folded" : "",
    row.id === open ? "open" : "",
  ];
  return html`<a
    class=${cls.join(" ")}
    href=${`${base}/t/${encodeURIComponent(row.id)}`}
    data-turn-id=${row.id}
    data-branch=${row.branch ?? ""}
    style=${`padding-left:${row.depth * INDENT + 4}px`}
  >
    ${row.branch ? html`<b class=${`tag ${row.branch}`}>${row.branch}</b> ` : ""}
    <span class="seq">#${row.seq}</span>
    <span class="gates">${row.gates.join(", ") || "no gates"}</span>
    ${row.err ? html`<b class="tag err">error</b>` : ""}
    ${row.folded ? html`<span class="tag folded">folded</span>` : ""}
    ${row.end ? html`<span class="end">→ ${row.end}</span>` : ""}
    <span class="meta"
      >${f.tokens(row.tokens)} tok ·
      ${f.ms(row.ms)}${row.cost === null ? "" : ` · ${f.usd(row.cost)}`}</span
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
  const head = useGet<{ entity: ViewEntity }>(
    `/api/l/${src}/e/${encodeURIComponent(entity)}/rows?offset=0&limit=1`,
    version,
  );
  const e = head?.entity;
  const base = `#/l/${src}/e/${encodeURIComponent(entity)}`;
  return html`<section class="split">
    <div class="left">
      <h2>
        <a href=${`#/l/${src}`}>entities</a> › ${entity}
        ${e?.kind === "fork" ? html` <a class="compare" href=${`#/l/${src}/c/${encodeURIComponent(entity)}`}>side by side with its original</a>` : ""}
      </h2>
      ${e ? html`<p class="intent-line">${f.short(e.intent, 300)} · ${f.status(e.end)} · ${e.turns} turns · ${total ?? "…"} rows</p>` : ""}
      <${Virtual}
        path=${`/api/l/${src}/e/${encodeURIComponent(entity)}/rows`}
        version=${version}
        onTotal=${setTotal}
        render=${(row: ViewRow) =>
          row.kind === "fold"
            ? html`<${Fold} row=${row} />`
            : html`<${Turn} row=${row} base=${base} open=${turn} />`}
      />
    </div>
    <div class="right">
      ${turn ? html`<${TurnPanel} src=${src} turn=${turn} version=${version} />` : html`<p class="hint">Open a turn to see it whole.</p>`}
    </div>
  </section>`;
}
