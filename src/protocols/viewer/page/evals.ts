/// <reference lib="dom" />
/**
 * An eval run as pictures: pass rate per target (spell × LLM) and per case as bars with their
 * counts, pass@k and pass^k over k, the cost and latency of the casts as distributions (p50 and
 * p95 marked), and the case × repeat heat map, each cell linked to its cast. Each picture has
 * its numbers as a table; numbers are rounded for people, exact in the title and the download.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { isStatic } from "./api.js";
import { Distribution, KCurve } from "./eval-charts.js";
import { caseKey, countBy, rate, spread, targets, type Counts } from "./eval-stats.js";
import * as f from "./format.js";
import type { SourceItem } from "./list.js";
import type { EvalRow } from "./types.js";
import { useGet } from "./use-get.js";

export interface EvalTable {
  name: string;
  loom: string | null;
  summary: [string, unknown][];
  rows: EvalRow[];
}

export const verdict = (r: EvalRow) => r.status ?? "?";

/** The results as cases × repeats: a row per case, a cell per repeat (its place when unnumbered). */
function grid(
  rows: EvalRow[],
  key: (r: EvalRow) => string,
): { cases: string[]; repeats: number[]; at: Map<string, EvalRow> } {
  const cases: string[] = [];
  const repeats = new Set<number>();
  const at = new Map<string, EvalRow>();
  const seen = new Map<string, number>();
  for (const r of rows) {
    const c = key(r);
    if (!seen.has(c)) cases.push(c);
    const n = (seen.get(c) ?? 0) + 1;
    seen.set(c, n);
    const repeat = r.repeat ?? n;
    repeats.add(repeat);
    at.set(`${c}/${repeat}`, r);
  }
  return { cases, repeats: [...repeats].sort((a, b) => a - b), at };
}

/** The link to a row's cast in the run's loom (its last turn opened when the row names it). */
export function castLink(loom: string | null, r: EvalRow): string | undefined {
  if (loom === null || !r.entity) return undefined;
  const e = `#/l/${loom}/e/${encodeURIComponent(r.entity)}`;
  return r.turn ? `${e}/t/${encodeURIComponent(r.turn)}` : e;
}

function HeatMap(props: { rows: EvalRow[]; loom: string | null }): VNode {
  const key = caseKey(props.rows);
  const { cases, repeats, at } = grid(props.rows, key);
  const cell = (c: string, n: number) => {
    const r = at.get(`${c}/${n}`);
    if (!r) return html`<td class="cell none"></td>`;
    const v = verdict(r);
    const text = `${v === "pass" ? "✓" : v === "fail" ? "✗" : v === "error" ? "!" : "?"} ${v}`;
    const score = r.score === null ? "" : ` ${Number(r.score.toPrecision(3))}`;
    const href = castLink(props.loom, r);
    const title = [
      `${c}, repeat ${n}: ${v}`,
      r.score === null ? "" : `score ${r.score}`,
      r.cost === null ? "" : `cost $${r.cost}`,
      r.latencyMs === null ? "" : `latency ${r.latencyMs} ms`,
      r.reason,
    ]
      .filter(Boolean)
      .join("\n");
    return html`<td class=${`cell ${v}`} data-cell=${`${c}/${n}`} title=${title}>
      ${href ? html`<a href=${href}>${text}${score}</a>` : html`${text}${score}`}
    </td>`;
  };
  return html`<table class="heat" data-heat="">
    <caption>
      Each cast: case × repeat (✓ pass, ✗ fail, ! error); a cell opens its cast
    </caption>
    <thead>
      <tr>
        <th scope="col">case</th>
        ${repeats.map((n) => html`<th scope="col">repeat ${n}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${cases.map(
        (c) =>
          html`<tr data-case=${c}>
            <th scope="row">${c}</th>
            ${repeats.map((n) => cell(c, n))}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Pass rates as bars, with the counts beside them: the bars and their table are one element. */
function Bars(props: { name: string; label: string; counts: Map<string, Counts> }): VNode {
  return html`<table class="bars" data-bars=${props.name}>
    <caption>
      ${props.label}
    </caption>
    <thead>
      <tr>
        <th scope="col">${props.name}</th>
        <th scope="col">pass rate</th>
        <th scope="col" class="num">rate</th>
        <th scope="col" class="num">passed</th>
        <th scope="col" class="num">failed</th>
        <th scope="col" class="num">errored</th>
      </tr>
    </thead>
    <tbody>
      ${[...props.counts].map(([k, c]) => {
        const all = c.pass + c.fail + c.error + c.unknown || 1;
        const r = rate(c);
        return html`<tr data-rate-of=${k}>
          <th scope="row">${k}</th>
          <td class="bar-cell" aria-hidden="true">
            <div class="bar">
              <span class="seg pass" style=${`width:${(100 * c.pass) / all}%`}></span
              ><span class="seg fail" style=${`width:${(100 * c.fail) / all}%`}></span
              ><span class="seg error" style=${`width:${(100 * c.error) / all}%`}></span>
            </div>
          </td>
          <td class="num rate" title=${f.exact(r)}>${f.pct(r)}</td>
          <td class="num">${c.pass}/${c.pass + c.fail}</td>
          <td class="num">${c.fail}</td>
          <td class="num">${c.error}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

function Headline({ rows }: { rows: EvalRow[] }): VNode {
  const c = countBy(rows, () => "all").get("all") ?? { pass: 0, fail: 0, error: 0, unknown: 0 };
  const r = rate(c);
  const cost = rows.some((x) => x.cost !== null)
    ? rows.reduce((a, x) => a + (x.cost ?? 0), 0)
    : null;
  const lat = spread(rows.map((x) => x.latencyMs));
  const tile = (name: string, value: string, title = "", extra = "") =>
    html`<div class="tile" data-tile=${name} title=${title}>
      <b>${value}</b><span>${name}${extra}</span>
    </div>`;
  return html`<div class="tiles">
    ${tile("pass rate", f.pct(r), f.exact(r), ` (${c.pass} of ${c.pass + c.fail})`)}
    ${tile("casts", String(rows.length))} ${tile("failed", String(c.fail))}
    ${tile("errored", String(c.error))} ${tile("cost", f.usd(cost), f.exact(cost))}
    ${lat.n ? tile("latency p50", f.ms(lat.p50), f.exact(lat.p50)) : ""}
  </div>`;
}

/** The other eval runs of the folder, to compare this one with. */
function ComparePick({ src }: { src: string }): VNode {
  const sources = useGet<SourceItem[]>("/api/sources", 0);
  const others = (sources ?? []).filter((s) => s.kind === "eval" && s.id !== src);
  if (!others.length) return html``;
  return html`<p class="compare-pick">
    Compare with:
    ${others.map((o) => html` <a data-compare-with=${o.id} href=${`#/cmp/${o.id}/${src}`}>${o.name}</a>`)}
    <span class="hint">(that run before, this one after)</span>
  </p>`;
}

function Panels({ rows }: { rows: EvalRow[] }): VNode {
  const multi = targets(rows).length > 1 || rows.some((r) => r.target);
  return html`<div class="panels">
    ${
      multi
        ? html`<section class="panel">
            <h3>Pass rate per target</h3>
            <${Bars}
              name="target"
              label="Passed, failed and errored casts per spell × LLM"
              counts=${countBy(rows, (r) => r.target || "run")}
            />
          </section>`
        : ""
    }
    <section class="panel">
      <h3>Pass rate per case</h3>
      <${Bars}
        name="case"
        label="Passed, failed and errored casts per case"
        counts=${countBy(rows, caseKey(rows))}
      />
    </section>
    <${KCurve} rows=${rows} />
    <${Distribution}
      name="cost"
      title="Cost per cast"
      rows=${rows}
      value=${(r: EvalRow) => r.cost}
      format=${(v: number) => f.usd(v)}
    />
    <${Distribution}
      name="latency"
      title="Latency per cast"
      rows=${rows}
      value=${(r: EvalRow) => r.latencyMs}
      format=${f.ms}
    />
  </div>`;
}

export function EvalRun({ src, version }: { src: string; version: number }): VNode {
  const t = useGet<EvalTable>(`/api/evals/${src}`, version);
  if (!t) return html`<p>Loading…</p>`;
  const key = caseKey(t.rows);
  return html`<section class="eval">
    <h2><a href="#/">sources</a> › eval run ${t.name}</h2>
    ${isStatic ? "" : html`<${ComparePick} src=${src} />`}
    <${Headline} rows=${t.rows} />
    <${Panels} rows=${t.rows} />
    <h3>Every cast</h3>
    <${HeatMap} rows=${t.rows} loom=${t.loom} />
    <ul class="reasons">
      ${t.rows
        .filter((r) => r.reason && r.status !== "pass")
        .map((r) => html`<li>${key(r)} · ${r.repeat ?? ""} · ${verdict(r)}: ${r.reason}</li>`)}
    </ul>
    <details>
      <summary>summary.json, exact</summary>
      <pre class="summary-json">${JSON.stringify(Object.fromEntries(t.summary), null, 2)}</pre>
    </details>
    ${
      isStatic
        ? ""
        : html`<p>
            <a href=${`/api/evals/${src}`} download=${`eval-${src}.json`}
              >Download every value (JSON)</a
            >
          </p>`
    }
  </section>`;
}
