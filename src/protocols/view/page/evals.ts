/// <reference lib="dom" />
/**
 * An eval run as pictures: pass rate per target (spell × LLM) and per case as bars with their
 * counts, pass@k and pass^k over k, the cost and latency of the casts as distributions (p50 and
 * p95 marked), and the case × repeat heat map, each cell linked to its cast. Each picture has
 * its numbers as a table; numbers are rounded for people, exact in the title and the download.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { isStatic } from "./api.js";
import { Chart, COLORS } from "./chart.js";
import {
  caseKey,
  countBy,
  kCurve,
  rate,
  spread,
  targets,
  type Counts,
  type Spread,
} from "./eval-stats.js";
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

function KCurve({ rows }: { rows: EvalRow[] }): VNode {
  const ts = targets(rows);
  const curves = ts.map((t) => ({ t, points: kCurve(rows.filter((r) => r.target === t)) }));
  const ks = [...new Set(curves.flatMap((c) => c.points.map((p) => p.k)))].sort((a, b) => a - b);
  if (!ks.length) return html``;
  const at = (points: ReturnType<typeof kCurve>, k: number, which: "at" | "hat") =>
    points.find((p) => p.k === k)?.[which] ?? null;
  const name = (t: string) => t || "run";
  return html`<section class="panel">
    <h3>pass@k and pass^k</h3>
    <p class="hint">
      pass@k: the chance that at least one of k casts passes; pass^k: that all k pass (mean over
      the cases).
    </p>
    <${Chart}
      name="pass-k"
      label=${`pass@k and pass^k for k = 1 to ${ks[ks.length - 1]}`}
      x=${ks}
      lines=${curves.flatMap((c, i) => [
        { label: `pass@k ${name(c.t)}`, values: ks.map((k) => at(c.points, k, "at")), color: COLORS[(2 * i) % COLORS.length] },
        { label: `pass^k ${name(c.t)}`, values: ks.map((k) => at(c.points, k, "hat")), color: COLORS[(2 * i + 1) % COLORS.length], dash: [6, 4] },
      ])}
      xLabel="k"
      integerX=${true}
      yLabel="share of cases"
      yRange=${[0, 1]}
      yFormat=${(v: number) => f.pct(v)}
    />
    <table class="numbers" data-table="pass-k">
      <caption>
        pass@k and pass^k as numbers
      </caption>
      <thead>
        <tr>
          <th scope="col">target</th>
          ${ks.map((k) => html`<th scope="col" class="num">pass@${k}</th><th scope="col" class="num">pass^${k}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${curves.map(
          (c) =>
            html`<tr data-k-of=${c.t}>
              <th scope="row">${name(c.t)}</th>
              ${ks.map((k) => {
                const a = at(c.points, k, "at");
                const h = at(c.points, k, "hat");
                return html`<td class="num" data-pass-at=${k} title=${f.exact(a)}>${f.pct(a)}</td>
                  <td class="num" data-pass-hat=${k} title=${f.exact(h)}>${f.pct(h)}</td>`;
              })}
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** The casts' values of one measure (cost, latency) as a cumulative share, p50 and p95 marked. */
function Distribution(props: {
  name: string;
  title: string;
  rows: EvalRow[];
  value: (r: EvalRow) => number | null;
  format: (v: number) => string;
}): VNode {
  const ts = targets(props.rows);
  const all = spread(props.rows.map(props.value));
  if (!all.n)
    return html`<section class="panel">
      <h3>${props.title}</h3>
      <p class="hint">The run records no ${props.name} per cast.</p>
    </section>`;
  const per = ts.map((t) => ({ t, s: spread(props.rows.filter((r) => r.target === t).map(props.value)) }));
  const xs = all.sorted.filter((v, i, a) => i === 0 || a[i - 1] !== v);
  const share = (s: Spread) =>
    xs.map((x) => {
      let lo = 0;
      let hi = s.sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (s.sorted[mid]! <= x) lo = mid + 1;
        else hi = mid;
      }
      return s.n ? lo / s.n : null;
    });
  const row = (label: string, s: Spread, key: string) =>
    html`<tr data-spread-of=${key}>
      <th scope="row">${label}</th>
      <td class="num">${s.n}</td>
      <td class="num" data-p50="" title=${f.exact(s.p50)}>${props.format(s.p50)}</td>
      <td class="num" data-p95="" title=${f.exact(s.p95)}>${props.format(s.p95)}</td>
      <td class="num" title=${f.exact(s.mean)}>${props.format(s.mean)}</td>
      <td class="num" title=${f.exact(s.max)}>${props.format(s.max)}</td>
    </tr>`;
  return html`<section class="panel">
    <h3>${props.title}</h3>
    <${Chart}
      name=${props.name}
      label=${`${props.title}: share of casts at or below each value; p50 ${props.format(all.p50)}, p95 ${props.format(all.p95)}`}
      x=${xs}
      lines=${per.map((p) => ({ label: p.t || "casts", values: share(p.s) }))}
      marks=${[
        { x: all.p50, label: `p50 ${props.format(all.p50)}` },
        { x: all.p95, label: `p95 ${props.format(all.p95)}`, color: "#8a1c3c" },
      ]}
      xLabel=${props.name}
      yLabel="share of casts"
      yRange=${[0, 1]}
      xFormat=${props.format}
      yFormat=${(v: number) => f.pct(v)}
      stepped=${true}
    />
    <table class="numbers" data-table=${props.name}>
      <caption>
        ${props.title} as numbers
      </caption>
      <thead>
        <tr>
          <th scope="col">target</th>
          <th scope="col" class="num">casts</th>
          <th scope="col" class="num">p50</th>
          <th scope="col" class="num">p95</th>
          <th scope="col" class="num">mean</th>
          <th scope="col" class="num">max</th>
        </tr>
      </thead>
      <tbody>
        ${ts.length > 1 ? per.map((p) => row(p.t, p.s, p.t)) : ""} ${row("all casts", all, "")}
      </tbody>
    </table>
  </section>`;
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

export function EvalRun({ src, version }: { src: string; version: number }): VNode {
  const t = useGet<EvalTable>(`/api/evals/${src}`, version);
  const [raw, setRaw] = useState(false);
  if (!t) return html`<p>Loading…</p>`;
  const key = caseKey(t.rows);
  const multi = targets(t.rows).length > 1 || t.rows.some((r) => r.target);
  return html`<section class="eval">
    <h2><a href="#/">sources</a> › eval run ${t.name}</h2>
    ${isStatic ? "" : html`<${ComparePick} src=${src} />`}
    <${Headline} rows=${t.rows} />
    <div class="panels">
      ${multi
        ? html`<section class="panel">
            <h3>Pass rate per target</h3>
            <${Bars}
              name="target"
              label="Passed, failed and errored casts per spell × LLM"
              counts=${countBy(t.rows, (r) => r.target || "run")}
            />
          </section>`
        : ""}
      <section class="panel">
        <h3>Pass rate per case</h3>
        <${Bars} name="case" label="Passed, failed and errored casts per case" counts=${countBy(t.rows, key)} />
      </section>
      <${KCurve} rows=${t.rows} />
      <${Distribution} name="cost" title="Cost per cast" rows=${t.rows} value=${(r: EvalRow) => r.cost} format=${(v: number) => f.usd(v)} />
      <${Distribution} name="latency" title="Latency per cast" rows=${t.rows} value=${(r: EvalRow) => r.latencyMs} format=${f.ms} />
    </div>
    <h3>Every cast</h3>
    <${HeatMap} rows=${t.rows} loom=${t.loom} />
    <ul class="reasons">
      ${t.rows
        .filter((r) => r.reason && r.status !== "pass")
        .map((r) => html`<li>${key(r)} · ${r.repeat ?? ""} · ${verdict(r)}: ${r.reason}</li>`)}
    </ul>
    <details open=${raw} onToggle=${(e: Event) => setRaw((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>summary.json, exact</summary>
      <pre class="summary-json">${JSON.stringify(Object.fromEntries(t.summary), null, 2)}</pre>
    </details>
    ${isStatic
      ? ""
      : html`<p><a href=${`/api/evals/${src}`} download=${`eval-${src}.json`}>Download every value (JSON)</a></p>`}
  </section>`;
}
