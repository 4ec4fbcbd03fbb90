/// <reference lib="dom" />
/**
 * Fork from a turn, in the page: the intent (the entity's, to edit) and the model (the spell's
 * unless another is chosen: the models the loom has seen are offered). Shown only when the
 * server was started with `--allow-fork`; the request carries a header a form or another site
 * cannot send without the server's consent, and the server answers the new entity, which then
 * appears in the tree as a branch under the turn (the page polls the loom).
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { get, isStatic } from "./api.js";

interface Features {
  fork: boolean;
  models: string[];
}

let features: Promise<Features> | undefined;
const noFork: Features = { fork: false, models: [] };

function useFeatures(src: string): Features {
  const [f, setF] = useState<Features>(noFork);
  useEffect(() => {
    if (isStatic) return;
    features ??= get<Features>(`/api/l/${src}/features`).catch(() => noFork);
    void features.then(setF);
  }, [src]);
  return f;
}

interface Forked {
  entity: string;
  status: string;
  reason: string;
  last_turn_id: string | null;
}

export function ForkForm(props: { src: string; turn: string; intent: string }): VNode {
  const f = useFeatures(props.src);
  const [intent, setIntent] = useState(props.intent);
  const [model, setModel] = useState("");
  const [state, setState] = useState<{ busy?: boolean; error?: string; done?: Forked }>({});
  useEffect(() => setIntent(props.intent), [props.intent]);
  if (!f.fork) return html``;
  const submit = async (e: Event) => {
    e.preventDefault();
    setState({ busy: true });
    try {
      const res = await fetch(`/api/l/${props.src}/fork`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-spell-view": "fork" },
        body: JSON.stringify({ turn: props.turn, intent, ...(model ? { llm: model } : {}) }),
      });
      const body = (await res.json()) as Forked & { error?: { message: string } };
      if (!res.ok) throw new Error(body.error?.message ?? String(res.status));
      setState({ done: body });
    } catch (err) {
      setState({ error: err instanceof Error ? err.message : String(err) });
    }
  };
  const list = `models-${props.turn}`;
  return html`<form class="fork" data-fork-form=${props.turn} onSubmit=${submit}>
    <h4>Fork from this turn</h4>
    <p class="hint">
      A new entity continues from this turn with the intent below; it spends tokens of the
      spell's model, or of the one given.
    </p>
    <label
      >Intent
      <textarea name="intent" rows="2" value=${intent} onInput=${(e: Event) => setIntent((e.currentTarget as HTMLTextAreaElement).value)}></textarea>
    </label>
    <label
      >Model (provider/model; empty: the spell's)
      <input name="llm" list=${list} value=${model} onInput=${(e: Event) => setModel((e.currentTarget as HTMLInputElement).value)} />
      <datalist id=${list}>${f.models.map((m) => html`<option value=${m}></option>`)}</datalist>
    </label>
    <button type="submit" disabled=${state.busy === true || !intent.trim()}>
      ${state.busy ? "Forking…" : "Fork"}
    </button>
    ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ""}
    ${state.done
      ? html`<p class="forked" data-forked=${state.done.entity} role="status">
          Forked: <a href=${`#/l/${props.src}/e/${encodeURIComponent(state.done.entity)}`}>${state.done.entity}</a>
          (${state.done.status}, ${state.done.reason}) ·
          <a href=${`#/l/${props.src}/c/${encodeURIComponent(state.done.entity)}`}>side by side with its original</a>
        </p>`
      : ""}
  </form>`;
}
