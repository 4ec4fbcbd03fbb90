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
    <table>
      <thead>
        <tr>
          <th>case</th>
          <th>repeat</th>
          <th>result</th>
          <th>score</th>
          <th>reason</th>
        </tr>
      </thead>
      <tbody>
        ${t.rows.map(
          (r) =>
            html`<tr class=${verdict(r.pass)} data-case=${r.case}>
              <td>${r.case}</td>
              <td>${r.repeat ?? ""}</td>
              <td>
                ${link(r) ? html`<a href=${link(r)}>${verdict(r.pass)}</a>` : verdict(r.pass)}
              </td>
              <td>${r.score ?? ""}</td>
              <td>${r.reason}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
