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

/** Asks the server for the fork; its answer, or the error it gave. */
async function askFork(src: string, body: object): Promise<Forked> {
  const res = await fetch(`/api/l/${src}/fork`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-spell-view": "fork" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Forked & { error?: { message: string } };
  if (!res.ok) throw new Error(answer.error?.message ?? String(res.status));
  return answer;
}

function Done({ src, done }: { src: string; done: Forked }): VNode {
  return html`<p class="forked" data-forked=${done.entity} role="status">
    ${"Forked: "}<a href=${`#/l/${src}/e/${encodeURIComponent(done.entity)}`}>${done.entity}</a>
    ${` (${done.status}, ${done.reason}) · `}<a
      href=${`#/l/${src}/c/${encodeURIComponent(done.entity)}`}
      >side by side with its original</a
    >
  </p>`;
}

export function ForkForm(props: { src: string; turn: string; intent: string }): VNode {
  const f = useFeatures(props.src);
  const [intent, setIntent] = useState(props.intent);
  const [model, setModel] = useState("");
  const [state, setState] = useState<{ busy?: boolean; error?: string; done?: Forked }>({});
  useEffect(() => setIntent(props.intent), [props.intent]);
  if (!f.fork) return html``;
  const submit = (e: Event) => {
    e.preventDefault();
    setState({ busy: true });
    askFork(props.src, { turn: props.turn, intent, ...(model ? { llm: model } : {}) }).then(
      (done) => setState({ done }),
      (err: unknown) => setState({ error: err instanceof Error ? err.message : String(err) }),
    );
  };
  const list = `models-${props.turn}`;
  const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  return html`<form class="fork" data-fork-form=${props.turn} onSubmit=${submit}>
    <h4>Fork from this turn</h4>
    <p class="hint">
      A new entity continues from this turn with the intent below; it spends tokens of the spell's
      model, or of the one given.
    </p>
    <label
      >Intent
      <textarea
        name="intent"
        rows="2"
        value=${intent}
        onInput=${(e: Event) => setIntent(value(e))}
      ></textarea>
    </label>
    <label
      >Model (provider/model; empty: the spell's)
      <input name="llm" list=${list} value=${model} onInput=${(e: Event) => setModel(value(e))} />
      <datalist id=${list}>${f.models.map((m) => html`<option value=${m}></option>`)}</datalist>
    </label>
    <button type="submit" disabled=${state.busy === true || !intent.trim()}>
      ${state.busy ? "Forking…" : "Fork"}
    </button>
    ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ""}
    ${state.done ? html`<${Done} src=${props.src} done=${state.done} />` : ""}
  </form>`;
}
