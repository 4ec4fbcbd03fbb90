/// <reference lib="dom" />
/** An eval run: its summary and its table (case × repeat: pass or fail, score, reason), each
 * cell linked to its cast in the run's loom when the row names the entity. */
import { type VNode } from "preact";
import { html } from "htm/preact";
import type { EvalRow } from "./types.js";
import { useGet } from "./use-get.js";

interface EvalTable {
  name: string;
  loom: string | null;
  summary: [string, unknown][];
  rows: EvalRow[];
}

const verdict = (p: boolean | null) => (p === null ? "?" : p ? "pass" : "fail");

/** The results as cases × repeats: a row per case, a cell per repeat (its place when unnumbered). */
function grid(rows: EvalRow[]): { cases: string[]; repeats: number[]; at: Map<string, EvalRow> } {
  const cases: string[] = [];
  const repeats = new Set<number>();
  const at = new Map<string, EvalRow>();
  const seen = new Map<string, number>();
  for (const r of rows) {
    if (!seen.has(r.case)) cases.push(r.case);
    const n = (seen.get(r.case) ?? 0) + 1;
    seen.set(r.case, n);
    const repeat = r.repeat ?? n;
    repeats.add(repeat);
    at.set(`${r.case}/${repeat}`, r);
  }
  return { cases, repeats: [...repeats].sort((a, b) => a - b), at };
}

function Matrix(props: { rows: EvalRow[]; link: (r: EvalRow) => string | undefined }): VNode {
  const { cases, repeats, at } = grid(props.rows);
  const cell = (c: string, n: number) => {
    const r = at.get(`${c}/${n}`);
    if (!r) return html`<td></td>`;
    const text = `${verdict(r.pass)}${r.score === null ? "" : ` ${r.score}`}`;
    const href = props.link(r);
    return html`<td class=${`cell ${verdict(r.pass)}`} data-cell=${`${c}/${n}`} title=${r.reason}>
      ${href ? html`<a href=${href}>${text}</a>` : text}
    </td>`;
  };
  return html`<table>
    <thead>
      <tr>
        <th>case</th>
        ${repeats.map((n) => html`<th>repeat ${n}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${cases.map(
        (c) =>
          html`<tr data-case=${c}>
            <td>${c}</td>
            ${repeats.map((n) => cell(c, n))}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function EvalRun({ src, version }: { src: string; version: number }): VNode {
  const t = useGet<EvalTable>(`/api/evals/${src}`, version);
  if (!t) return html`<p>Loading…</p>`;
  const link = (r: EvalRow) =>
    t.loom !== null && r.entity ? `#/l/${t.loom}/e/${encodeURIComponent(r.entity)}` : undefined;
  return html`<section class="eval">
    <h2><a href="#/">sources</a> › eval run ${t.name}</h2>
    <dl class="summary">
      ${t.summary.map(
        ([k, v]) =>
          html`<dt>${k}</dt>
            <dd>${typeof v === "string" ? v : JSON.stringify(v)}</dd>`,
      )}
    </dl>
    <${Matrix} rows=${t.rows} link=${link} />
    <ul class="reasons">
      ${t.rows
        .filter((r) => r.reason)
        .map((r) => html`<li>${r.case} · ${r.repeat ?? ""} · ${verdict(r.pass)}: ${r.reason}</li>`)}
    </ul>
  </section>`;
}
