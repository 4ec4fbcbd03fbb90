/// <reference lib="dom" />
/** The first views: the looms and eval runs of a folder, and a loom's entities. */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import * as f from "./format.js";
import type { ViewerEntity } from "./types.js";
import { useGet } from "./use-get.js";
import { Virtual } from "./virtual.js";

export interface SourceItem {
  id: string;
  kind: "loom" | "eval";
  name: string;
  loom?: string | null;
}

export function SourceList({ version }: { version: number }): VNode {
  const items = useGet<SourceItem[]>("/api/sources", version);
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

function EntityRow({ src, e }: { src: string; e: ViewerEntity }): VNode {
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

const COLUMNS: [string, string, string][] = [
  ["intent", "intent", "intent"],
  ["status", "status", "status"],
  ["turns", "turns", "num"],
  ["tokens", "tokens", "num"],
  ["cost", "cost", "num"],
  ["reward", "reward", "num"],
  ["time", "started", "time"],
];

/** The list's search, filters and sort, kept in the address (`?q=…&sort=…`) after the route. */
function useQuery(): [Record<string, string>, (q: Record<string, string>) => void] {
  const read = () => {
    const at = location.hash.indexOf("?");
    return at < 0 ? {} : Object.fromEntries(new URLSearchParams(location.hash.slice(at + 1)));
  };
  const [q, setQ] = useState<Record<string, string>>(read());
  const set = (next: Record<string, string>) => {
    const clean = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== ""));
    setQ(clean);
    const base = location.hash.split("?")[0];
    const qs = new URLSearchParams(clean).toString();
    history.replaceState(null, "", `${base}${qs ? `?${qs}` : ""}`);
  };
  return [q, set];
}

type Query = Record<string, string>;

function Filters({ q, setQ }: { q: Query; setQ: (q: Query) => void }): VNode {
  const field = (name: string) => (e: Event) =>
    setQ({ ...q, [name]: (e.currentTarget as HTMLInputElement).value });
  const num = (name: string, label: string, min?: string) =>
    html`<label
      >${label}
      <input
        type="number"
        step="any"
        min=${min}
        name=${name}
        value=${q[name] ?? ""}
        onInput=${field(name)}
    /></label>`;
  return html`<form class="filters" role="search" onSubmit=${(e: Event) => e.preventDefault()}>
    <label
      >Search
      <input
        type="search"
        name="q"
        value=${q["q"] ?? ""}
        onInput=${field("q")}
        placeholder="words in the intent or id"
    /></label>
    <label
      >Status
      <select name="status" value=${q["status"] ?? ""} onChange=${field("status")}>
        <option value="">any</option>
        <option value="open">open</option>
        <option value="ended">ended</option>
        <option value="truncated">truncated</option>
        <option value="error">with an error</option>
      </select></label
    >
    ${num("minReward", "Reward at least")} ${num("maxCost", "Cost at most $", "0")}
  </form>`;
}

/** The column heads: a click sorts by the column, a second click the other way. */
function Head({ q, setQ }: { q: Query; setQ: (q: Query) => void }): VNode {
  const sortBy = (col: string) =>
    setQ({ ...q, sort: col, dir: q["sort"] === col && q["dir"] !== "desc" ? "desc" : "asc" });
  const arrow = (col: string) => (q["sort"] === col ? (q["dir"] === "desc" ? " ▼" : " ▲") : "");
  return html`<div class="erow head">
    ${COLUMNS.map(
      ([label, col, cls]) =>
        html`<button
          type="button"
          class=${`sort ${cls}`}
          data-sort=${col}
          title=${`Sort by ${label}`}
          onClick=${() => sortBy(col)}
        >
          ${label}${arrow(col)}
        </button>`,
    )}
  </div>`;
}

export function EntityList({ src, version }: { src: string; version: number }): VNode {
  const [total, setTotal] = useState<number | null>(null);
  const [q, setQ] = useQuery();
  const qs = new URLSearchParams(q).toString();
  return html`<section>
    <h2>Entities ${total === null ? "" : html`<small data-total=${total}>(${total})</small>`}</h2>
    <${Filters} q=${q} setQ=${setQ} />
    <${Head} q=${q} setQ=${setQ} />
    <${Virtual}
      path=${`/api/l/${src}/entities${qs ? `?${qs}` : ""}`}
      version=${version}
      onTotal=${setTotal}
      render=${(e: ViewerEntity) => html`<${EntityRow} src=${src} e=${e} />`}
    />
  </section>`;
}
