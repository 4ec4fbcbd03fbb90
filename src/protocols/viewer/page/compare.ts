/// <reference lib="dom" />
/**
 * Two threads side by side: a fork against its original (the thread of the entity it was
 * forked from). Each is the path from the root to the entity's last turn; the turns both share
 * (the head before the fork) are marked.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import * as f from "./format.js";
import type { TurnRow, ViewerEntity } from "./types.js";
import { useGet } from "./use-get.js";
import { Virtual } from "./virtual.js";

function Column(props: { src: string; entity: string; other: string; version: number }): VNode {
  const { src, entity, version } = props;
  const e = useGet<{ entity: ViewerEntity }>(
    `/api/l/${src}/e/${encodeURIComponent(entity)}/thread?offset=0&limit=1`,
    version,
  )?.entity;
  return html`<div class="column" data-thread=${entity}>
    <h3><a href=${`#/l/${src}/e/${encodeURIComponent(entity)}`}>${entity}</a></h3>
    ${e ? html`<p class="intent-line">${f.short(e.intent, 200)} · ${f.status(e.end)}</p>` : ""}
    <${Virtual}
      path=${`/api/l/${src}/e/${encodeURIComponent(entity)}/thread`}
      version=${version}
      height="calc(100vh - 180px)"
      render=${(row: TurnRow) =>
        html`<a
          class=${`row ${row.err ? "err" : ""} ${row.entity === entity ? "own" : "shared"}`}
          data-turn-id=${row.id}
          href=${`#/l/${src}/e/${encodeURIComponent(row.entity)}/t/${encodeURIComponent(row.id)}`}
        >
          ${row.branch ? html`<b class=${`tag ${row.branch}`}>${row.branch}</b> ` : ""}
          <span class="seq">#${row.seq}</span>
          <span class="gates">${row.gates.join(", ") || "no gates"}</span>
          ${row.end ? html`<span class="end">→ ${row.end}</span>` : ""}
          <span class="meta">${f.tokens(row.tokens)} tok</span>
        </a>`}
    />
  </div>`;
}

export function Compare({
  src,
  fork,
  version,
}: {
  src: string;
  fork: string;
  version: number;
}): VNode {
  const e = useGet<{ entity: ViewerEntity }>(
    `/api/l/${src}/e/${encodeURIComponent(fork)}/rows?offset=0&limit=1`,
    version,
  )?.entity;
  if (!e) return html`<p>Loading…</p>`;
  if (!e.parentEntity) return html`<p>${fork} is not a fork.</p>`;
  return html`<section>
    <h2><a href=${`#/l/${src}`}>entities</a> › side by side</h2>
    <div class="compare">
      <${Column} src=${src} entity=${e.parentEntity} other=${fork} version=${version} />
      <${Column} src=${src} entity=${fork} other=${e.parentEntity} version=${version} />
    </div>
  </section>`;
}
