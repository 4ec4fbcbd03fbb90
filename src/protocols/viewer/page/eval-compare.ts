/// <reference lib="dom" />
/**
 * Two eval runs side by side (`#/cmp/BEFORE/AFTER`): each case's pass rate in both, sorted into
 * regressed, newly errored, improved, unchanged, new (only after) and not run again (only
 * before); a case opened shows the two casts' threads beside each other, their first
 * difference marked. Cases are matched by target and case, or by case alone when each run cast
 * one target (two models compared).
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { get, type Page } from "./api.js";
import { countBy, rate, targets, type Counts } from "./eval-stats.js";
import type { EvalTable } from "./evals.js";
import * as f from "./format.js";
import type { EvalRow, TurnRow } from "./types.js";
import { useGet } from "./use-get.js";

type Change = "regressed" | "newly errored" | "improved" | "unchanged" | "new" | "not run again";
const ORDER: Change[] = [
  "regressed",
  "newly errored",
  "improved",
  "new",
  "not run again",
  "unchanged",
];

export interface CaseChange {
  key: string;
  change: Change;
  before: Counts | undefined;
  after: Counts | undefined;
}

export function keyOf(a: EvalRow[], b: EvalRow[]): (r: EvalRow) => string {
  const single = targets(a).length <= 1 && targets(b).length <= 1;
  return (r) => (single || !r.target ? r.case : `${r.case} · ${r.target}`);
}

export function changes(a: EvalRow[], b: EvalRow[]): CaseChange[] {
  const key = keyOf(a, b);
  const before = countBy(a, key);
  const after = countBy(b, key);
  const out: CaseChange[] = [];
  for (const [k, now] of after) {
    const then = before.get(k);
    let change: Change;
    if (!then) change = "new";
    else if (now.error > 0 && then.error === 0) change = "newly errored";
    else {
      const r0 = rate(then);
      const r1 = rate(now);
      change =
        r0 !== null && r1 !== null && r1 < r0 - 1e-9
          ? "regressed"
          : r0 !== null && r1 !== null && r1 > r0 + 1e-9
            ? "improved"
            : "unchanged";
    }
    out.push({ key: k, change, before: then, after: now });
  }
  for (const [k, then] of before)
    if (!after.has(k))
      out.push({ key: k, change: "not run again", before: then, after: undefined });
  return out.sort((x, y) => ORDER.indexOf(x.change) - ORDER.indexOf(y.change));
}

const shown = (c: Counts | undefined) =>
  c
    ? html`<span title=${f.exact(rate(c))}>${f.pct(rate(c))}</span>
        <small>(${c.pass}/${c.pass + c.fail}${c.error ? `, ${c.error} errored` : ""})</small>`
    : "–";

interface Side {
  loom: string | null;
  row: EvalRow | undefined;
}

/** A turn as compared: what it called and how it ended, then (read whole) what it said and got. */
const shape = (r: TurnRow) => `${r.gates.join(",")}|${r.end ?? ""}|${r.err}`;

interface Detail {
  turn: {
    utterance: string;
    observation: string;
    gate_calls: { gate_name: string; arguments: string; result: string }[];
  };
}

const body = (d: Detail) =>
  JSON.stringify([
    d.turn.utterance,
    d.turn.observation,
    d.turn.gate_calls.map((c) => [c.arguments, c.result]),
  ]);

/** What a turn did, in a line: its calls with their arguments, else what it said. */
const gist = (d: Detail) =>
  f.short(
    d.turn.gate_calls.map((c) => `${c.gate_name}(${c.arguments})`).join(" ") || d.turn.utterance,
    160,
  );

interface Difference {
  /** The first turn where the two threads differ (-1: none). */
  at: number;
  /** What each side's turn did there, when both have one. */
  a?: string;
  b?: string;
}

/** Turn by turn: by what they called and how they ended, then read whole. */
async function firstDifference(
  a: Side,
  b: Side,
  ra: TurnRow[],
  rb: TurnRow[],
): Promise<Difference> {
  const n = Math.min(ra.length, rb.length);
  for (let i = 0; i < n; i++) {
    const [da, db] = await Promise.all([
      get<Detail>(`/api/l/${a.loom}/t/${encodeURIComponent(ra[i]!.id)}`),
      get<Detail>(`/api/l/${b.loom}/t/${encodeURIComponent(rb[i]!.id)}`),
    ]);
    if (shape(ra[i]!) !== shape(rb[i]!) || body(da) !== body(db))
      return { at: i, a: gist(da), b: gist(db) };
  }
  return { at: ra.length === rb.length ? -1 : n };
}

function Threads(props: { a: Side; b: Side }): VNode {
  const { a, b } = props;
  const [rows, setRows] = useState<{ a: TurnRow[]; b: TurnRow[]; diff: Difference } | null>(null);
  useEffect(() => {
    let live = true;
    const thread = (s: Side) =>
      s.loom !== null && s.row?.entity
        ? get<Page<TurnRow>>(
            `/api/l/${s.loom}/e/${encodeURIComponent(s.row.entity)}/thread?offset=0&limit=1000`,
          )
            .then((p) => p.rows)
            // A cast that errored before its first turn has no thread in the loom.
            .catch(() => [] as TurnRow[])
        : Promise.resolve([] as TurnRow[]);
    void Promise.all([thread(a), thread(b)]).then(async ([ra, rb]) => {
      const diff = await firstDifference(a, b, ra, rb);
      if (live) setRows({ a: ra, b: rb, diff });
    });
    return () => {
      live = false;
    };
  }, [a.loom, a.row?.entity, b.loom, b.row?.entity]);
  if (!rows) return html`<p>Loading the two casts…</p>`;
  const at = rows.diff.at;
  const column = (title: string, s: Side, list: TurnRow[], said: string | undefined) =>
    html`<div class="column" data-side=${title}>
      <h4>
        ${title}:
        ${s.row ? `${s.row.status ?? "?"}${s.row.reason ? ` · ${f.short(s.row.reason, 80)}` : ""}` : "no cast"}
      </h4>
      ${s.row && !list.length ? html`<p class="hint">No turn of this cast is in the run's loom.</p>` : ""}
      ${list.map(
        (r, i) =>
          html`<a
              class=${`row ${r.err ? "err" : ""} ${i === at ? "first-diff" : ""}`}
              data-turn-id=${r.id}
              data-first-diff=${i === at ? "" : undefined}
              href=${`#/l/${s.loom}/e/${encodeURIComponent(r.entity)}/t/${encodeURIComponent(r.id)}`}
            >
              ${i === at ? html`<b class="tag diff">first difference</b> ` : ""}
              <span class="seq">#${r.seq}</span>
              <span class="gates">${r.gates.join(", ") || "no gates"}</span>
              ${r.end ? html`<span class="end">→ ${r.end}</span>` : ""}
              <span class="meta">${f.tokens(r.tokens)} tok · ${f.ms(r.ms)}</span>
            </a>
            ${i === at && said ? html`<pre class="diff-gist" data-diff-gist="">${said}</pre>` : ""}`,
      )}
    </div>`;
  return html`<div class="compare" data-threads="">
      ${column("before", a, rows.a, rows.diff.a)} ${column("after", b, rows.b, rows.diff.b)}
    </div>
    ${at < 0 ? html`<p class="hint">The two threads do not differ.</p>` : ""}`;
}

function ChangeTable(props: { list: CaseChange[]; base: string; open?: string }): VNode {
  return html`<table class="changes">
    <caption>
      Each case's pass rate before and after
    </caption>
    <thead>
      <tr>
        <th scope="col">case</th>
        <th scope="col">change</th>
        <th scope="col" class="num">before</th>
        <th scope="col" class="num">after</th>
        <th scope="col">casts</th>
      </tr>
    </thead>
    <tbody>
      ${props.list.map(
        (c) =>
          html`<tr
            data-change-of=${c.key}
            data-change=${c.change}
            class=${c.key === props.open ? "open" : ""}
          >
            <th scope="row">${c.key}</th>
            <td><b class=${`tag change-${c.change.replace(/ /g, "-")}`}>${c.change}</b></td>
            <td class="num">${shown(c.before)}</td>
            <td class="num">${shown(c.after)}</td>
            <td>
              <a href=${`${props.base}/${encodeURIComponent(c.key)}`}>the two casts side by side</a>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The casts of a case to compare: the first pair whose verdicts differ, else the first of each. */
function pickPair(a: EvalRow[], b: EvalRow[], k: string) {
  const key = keyOf(a, b);
  const casts = (rows: EvalRow[]) =>
    rows.filter((r) => key(r) === k).sort((x, y) => (x.repeat ?? 0) - (y.repeat ?? 0));
  const xs = casts(a);
  const ys = casts(b);
  for (let i = 0; i < Math.min(xs.length, ys.length); i++)
    if (xs[i]!.status !== ys[i]!.status) return [xs[i], ys[i]] as const;
  return [xs[0], ys[0]] as const;
}

export function EvalCompare(props: { before: string; after: string; open?: string }): VNode {
  const a = useGet<EvalTable>(`/api/evals/${props.before}`, 0);
  const b = useGet<EvalTable>(`/api/evals/${props.after}`, 0);
  if (!a || !b) return html`<p>Loading…</p>`;
  const list = changes(a.rows, b.rows);
  const counts = ORDER.map((c) => [c, list.filter((x) => x.change === c).length] as const);
  const open = props.open;
  const pair = open ? pickPair(a.rows, b.rows, open) : undefined;
  return html`<section class="eval-compare">
    <h2><a href="#/">sources</a> › ${a.name} → ${b.name}</h2>
    <p class="tiles">
      ${counts.map(
        ([c, n]) =>
          html`<span class=${`tile change-${c.replace(/ /g, "-")}`} data-count=${c}
            ><b>${n}</b><span>${c}</span></span
          >`,
      )}
    </p>
    <${ChangeTable} list=${list} base=${`#/cmp/${props.before}/${props.after}`} open=${open} />
    ${
      open && pair
        ? html`<h3>${open}</h3>
            <${Threads} a=${{ loom: a.loom, row: pair[0] }} b=${{ loom: b.loom, row: pair[1] }} />`
        : ""
    }
  </section>`;
}
