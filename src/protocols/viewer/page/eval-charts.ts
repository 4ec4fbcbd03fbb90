/// <reference lib="dom" />
/**
 * An eval run's charts (uPlot, chart.ts), each followed by its numbers as a table: pass@k and
 * pass^k over k per target, and a measure of the casts (cost, latency) as the share of casts at
 * or below each value, its p50 and p95 marked.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { Chart, COLORS } from "./chart.js";
import { kCurve, spread, targets, type KPoint, type Spread } from "./eval-stats.js";
import * as f from "./format.js";
import type { EvalRow } from "./types.js";

type Curve = { t: string; points: KPoint[] };

const at = (points: KPoint[], k: number, which: "at" | "hat") =>
  points.find((p) => p.k === k)?.[which] ?? null;
const name = (t: string) => t || "run";

function KTable({ curves, ks }: { curves: Curve[]; ks: number[] }): VNode {
  return html`<table class="numbers" data-table="pass-k">
    <caption>
      pass@k and pass^k as numbers
    </caption>
    <thead>
      <tr>
        <th scope="col">target</th>
        ${ks.map(
          (k) =>
            html`<th scope="col" class="num">pass@${k}</th>
              <th scope="col" class="num">pass^${k}</th>`,
        )}
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
  </table>`;
}

export function KCurve({ rows }: { rows: EvalRow[] }): VNode {
  const ts = targets(rows);
  const curves = ts.map((t) => ({ t, points: kCurve(rows.filter((r) => r.target === t)) }));
  const ks = [...new Set(curves.flatMap((c) => c.points.map((p) => p.k)))].sort((a, b) => a - b);
  if (!ks.length) return html``;
  return html`<section class="panel">
    <h3>pass@k and pass^k</h3>
    <p class="hint">
      pass@k: the chance that at least one of k casts passes; pass^k: that all k pass (mean over the
      cases).
    </p>
    <${Chart}
      name="pass-k"
      label=${`pass@k and pass^k for k = 1 to ${ks[ks.length - 1]}`}
      x=${ks}
      lines=${curves.flatMap((c, i) => [
        {
          label: `pass@k ${name(c.t)}`,
          values: ks.map((k) => at(c.points, k, "at")),
          color: COLORS[(2 * i) % COLORS.length],
        },
        {
          label: `pass^k ${name(c.t)}`,
          values: ks.map((k) => at(c.points, k, "hat")),
          color: COLORS[(2 * i + 1) % COLORS.length],
          dash: [6, 4],
        },
      ])}
      xLabel="k"
      integerX=${true}
      yLabel="share of cases"
      yRange=${[0, 1]}
      yFormat=${(v: number) => f.pct(v)}
    />
    <${KTable} curves=${curves} ks=${ks} />
  </section>`;
}

/** The share of `s`'s values at or below each of `xs`. */
const shareAt = (xs: number[], s: Spread) =>
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

function SpreadTable(props: {
  name: string;
  title: string;
  per: { t: string; s: Spread }[];
  all: Spread;
  format: (v: number) => string;
}): VNode {
  const row = (label: string, s: Spread, key: string) =>
    html`<tr data-spread-of=${key}>
      <th scope="row">${label}</th>
      <td class="num">${s.n}</td>
      <td class="num" data-p50="" title=${f.exact(s.p50)}>${props.format(s.p50)}</td>
      <td class="num" data-p95="" title=${f.exact(s.p95)}>${props.format(s.p95)}</td>
      <td class="num" title=${f.exact(s.mean)}>${props.format(s.mean)}</td>
      <td class="num" title=${f.exact(s.max)}>${props.format(s.max)}</td>
    </tr>`;
  return html`<table class="numbers" data-table=${props.name}>
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
      ${props.per.length > 1 ? props.per.map((p) => row(p.t, p.s, p.t)) : ""}
      ${row("all casts", props.all, "")}
    </tbody>
  </table>`;
}

/** The casts' values of one measure (cost, latency) as a cumulative share, p50 and p95 marked. */
export function Distribution(props: {
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
  const per = ts.map((t) => ({
    t,
    s: spread(props.rows.filter((r) => r.target === t).map(props.value)),
  }));
  const xs = all.sorted.filter((v, i, a) => i === 0 || a[i - 1] !== v);
  return html`<section class="panel">
    <h3>${props.title}</h3>
    <${Chart}
      name=${props.name}
      label=${`${props.title}: share of casts at or below each value; p50 ${props.format(all.p50)}, p95 ${props.format(all.p95)}`}
      x=${xs}
      lines=${per.map((p) => ({ label: p.t || "casts", values: shareAt(xs, p.s) }))}
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
    <${SpreadTable}
      name=${props.name}
      title=${props.title}
      per=${per}
      all=${all}
      format=${props.format}
    />
  </section>`;
}
