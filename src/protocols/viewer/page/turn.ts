/// <reference lib="dom" />
/**
 * A turn opened: what the entity wrote, each gate call with its arguments and result (an error
 * marked; its start and duration when the loom records them), the observation, tokens, time,
 * the model, the folds that cover it, the entities hanging from it, and the rest of its
 * metadata (what the LLM was sent, when the loom has it); and, when the server allows it, a
 * form to fork the thread from this turn.
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import * as f from "./format.js";
import { ForkForm } from "./fork.js";
import { useGet } from "./use-get.js";

interface GateCall {
  gate_name: string;
  arguments: string;
  result: string;
  is_error: boolean;
  started_at?: string;
  duration_ms?: number;
}

interface Detail {
  turn: {
    id: string;
    entity_id: string;
    sequence: number;
    utterance: string;
    observation: string;
    gate_calls: GateCall[];
    metadata: Record<string, unknown>;
    reward: number | null;
    reason: string | null;
    is_error?: boolean;
    /** Loom format 3: who answered and what the turn cost, at the record's top level. */
    llm?: { provider?: string; model?: string | null };
    cost_usd?: number;
  };
  folds: { id: string; from_sequence: number; to_sequence: number; summary: string }[];
  hanging: { entity: string; kind: string }[];
}

const KNOWN = new Set([
  "tokens_prompt",
  "tokens_completion",
  "tokens_cached",
  "duration_ms",
  "timestamp",
  "cost_usd",
  "llm",
]);

const count = (v: unknown) => (typeof v === "number" ? String(v) : "0");

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function Call({ call, i, turnMs }: { call: GateCall; i: number; turnMs: number }): VNode {
  const d = call.duration_ms;
  return html`<div class=${`call ${call.is_error ? "err" : ""}`} data-call=${i}>
    <div class="call-head">
      <b>${call.gate_name}</b> ${call.is_error ? html`<b class="tag err">error</b>` : ""}
      ${
        typeof d === "number" && turnMs > 0
          ? html`<span class="dur" title=${`${d} ms of the turn's ${turnMs} ms`} aria-hidden="true"
              ><span
                class="dur-bar gate"
                style=${`width:${Math.min(100, Math.max(1, (100 * d) / turnMs))}%`}
              ></span
            ></span>`
          : ""
      }
      <span class="meta">
        ${[call.started_at ? f.when(call.started_at) : "", typeof call.duration_ms === "number" ? f.ms(call.duration_ms) : ""].filter(Boolean).join(" · ")}
      </span>
    </div>
    <pre class="args">${pretty(call.arguments)}</pre>
    <pre class="result">${call.result}</pre>
  </div>`;
}

/** Tokens, time, when, model, cost, reward and reason, in one line. */
function metaLine(
  t: Detail["turn"],
  m: Record<string, unknown>,
  llm: { provider?: string; model?: string | null } | undefined,
  cost: unknown,
): string {
  return [
    `${count(m["tokens_prompt"])} in`,
    `${count(m["tokens_completion"])} out`,
    `${count(m["tokens_cached"])} cached`,
    f.ms(Number(m["duration_ms"] ?? 0)),
    f.when(typeof m["timestamp"] === "string" ? m["timestamp"] : ""),
    llm ? [llm.provider, llm.model].filter(Boolean).join("/") : "",
    typeof cost === "number" ? f.usd(cost) : "",
    t.reward === null ? "" : `reward ${t.reward}`,
    t.reason ?? "",
  ]
    .filter(Boolean)
    .join(" · ");
}

export function TurnPanel({
  src,
  turn,
  version,
  intent,
}: {
  src: string;
  turn: string;
  version: number;
  /** The entity's intent: what a fork continues with unless edited. */
  intent: string;
}): VNode {
  const d = useGet<Detail>(`/api/l/${src}/t/${encodeURIComponent(turn)}`, version);
  if (!d || d.turn.id !== turn) return html`<p>Loading…</p>`;
  const t = d.turn;
  const m = t.metadata;
  const llm = t.llm ?? (m["llm"] as { provider?: string; model?: string } | undefined);
  const cost = t.cost_usd ?? m["cost_usd"];
  const rest = Object.fromEntries(Object.entries(m).filter(([k]) => !KNOWN.has(k)));
  return html`<article class="turn" data-open-turn=${t.id}>
    <h3>Turn #${t.sequence} <small>${t.id} · ${t.entity_id}</small></h3>
    <p class="meta">${metaLine(t, m, llm, cost)}</p>
    ${d.folds.map((fo) => html`<p class="fold"><b class="tag fold">folded</b> turns ${fo.from_sequence}–${fo.to_sequence}: ${fo.summary}</p>`)}
    <h4>Utterance</h4>
    <pre class="utterance">${t.utterance}</pre>
    <h4>Gate calls (${t.gate_calls.length})</h4>
    ${t.gate_calls.map((c, i) => html`<${Call} call=${c} i=${i} turnMs=${Number(m["duration_ms"] ?? 0)} />`)}
    <h4>Observation ${t.is_error ? html`<b class="tag err">error</b>` : ""}</h4>
    <pre class="observation">${t.observation}</pre>
    ${
      d.hanging.length
        ? html`<h4>Hanging from this turn</h4>
            <ul>
              ${d.hanging.map((x) => html`<li><a href=${`#/l/${src}/e/${encodeURIComponent(x.entity)}`}>${x.kind} ${x.entity}</a></li>`)}
            </ul>`
        : ""
    }
    ${
      Object.keys(rest).length
        ? html`<details class="metadata-box">
            <summary><h4>Metadata</h4></summary>
            <pre class="metadata">${JSON.stringify(rest, null, 2)}</pre>
          </details>`
        : ""
    }
    <${ForkForm} src=${src} turn=${t.id} intent=${intent} />
  </article>`;
}
