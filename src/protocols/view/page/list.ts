/// <reference lib="dom" />
/** The first views: the looms and eval runs of a folder, and a loom's entities. */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { get } from "./api.js";
import * as f from "./format.js";
import type { ViewEntity } from "./types.js";
import { Virtual } from "./virtual.js";

export interface SourceItem {
  id: string;
  kind: "loom" | "eval";
  name: string;
  loom?: string | null;
}

export function SourceList({ version }: { version: number }): VNode {
  const [items, setItems] = useState<SourceItem[] | null>(null);
  useEffect(() => {
    void get<SourceItem[]>("/api/sources").then(setItems);
  }, [version]);
  if (!items) return html`<p>Loading…</p>`;
  return html`<section>
    <h2>Looms and eval runs</h2>
    <ul class="sources">
      ${items.map(
        (s) =>
          html`<li data-source=${s.id}>
            <a href=${s.kind === "loom" ? `#/l/${s.id}` : `#/ev/${s.id}`}
              >${s.kind === "loom" ? "loom" : "eval run"} · ${s.name}</a
            >
          </li>`,
      )}
    </ul>
  </section>`;
}

function EntityRow({ src, e }: { src: string; e: ViewEntity }): VNode {
  return html`<a
    class=${`erow ${e.err ? "err" : ""}`}
    href=${`#/l/${src}/e/${encodeURIComponent(e.id)}`}
    data-entity=${e.id}
  >
    <span class="intent" title=${e.intent}
      >${e.kind === "root" ? "" : html`<b class=${`tag ${e.kind}`}>${e.kind}</b> `}${f.short(e.intent || e.id, 90)}</span
    >
    <span class="status">${f.status(e.end)}</span>
    <span class="num">${e.turns}</span>
    <span class="num">${f.tokens(e.tokens)}</span>
    <span class="num">${f.usd(e.cost)}</span>
    <span class="num">${f.reward(e.reward)}</span>
    <span class="time">${f.when(e.started)} · ${f.ms(e.ms)}</span>
  </a>`;
}

export function EntityList({ src, version }: { src: string; version: number }): VNode {
  const [total, setTotal] = useState<number | null>(null);
  return html`<section>
    <h2>Entities ${total === null ? "" : html`<small>(${total})</small>`}</h2>
    <div class="erow head">
      <span class="intent">intent</span><span class="status">status</span
      ><span class="num">turns</span><span class="num">tokens</span><span class="num">cost</span
      ><span class="num">reward</span><span class="time">time</span>
    </div>
    <${Virtual}
      path=${`/api/l/${src}/entities`}
      version=${version}
      onTotal=${setTotal}
      render=${(e: ViewEntity) => html`<${EntityRow} src=${src} e=${e} />`}
    />
  </section>`;
}
