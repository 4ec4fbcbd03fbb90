/// <reference lib="dom" />
/**
 * The viewer page (bundled by scripts/bundle.mjs into dist/viewer.js with preact and htm): a
 * router over the address's fragment, and the live part — while a loom is shown, its
 * `stat` is asked every second, and a new version (turns landed) makes the lists in sight
 * ask again; nothing reloads.
 */
import { render, type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { get, isStatic } from "./api.js";
import { Compare } from "./compare.js";
import { EvalCompare } from "./eval-compare.js";
import { EvalRun } from "./evals.js";
import { EntityList, SourceList, type SourceItem } from "./list.js";
import { CSS } from "./style.js";
import { EntityTree } from "./tree.js";

const POLL_MS = 1000;

function useRoute(): string[] {
  const read = () =>
    location.hash
      .replace(/^#\/?/, "")
      .split("?")[0]!
      .split("/")
      .filter(Boolean)
      .map(decodeURIComponent);
  const [route, setRoute] = useState(read());
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}

/** The version of the loom shown (or of the sources), asked again every second. */
function useVersion(loom: string | undefined): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (isStatic) return undefined;
    let last = -1;
    const look = () =>
      void (
        loom === undefined
          ? get<SourceItem[]>("/api/sources").then((s) => s.length)
          : get<{ version: number }>(`/api/l/${loom}/stat`).then((s) => s.version)
      )
        .then((v) => {
          if (v !== last) {
            last = v;
            setVersion((n) => n + 1);
          }
        })
        .catch(() => undefined);
    const timer = setInterval(look, POLL_MS);
    return () => clearInterval(timer);
  }, [loom]);
  return version;
}

function View({ route, version }: { route: string[]; version: number }): VNode {
  const [kind, src, what, id, sub, turn] = route;
  if (kind === "ev" && src) return html`<${EvalRun} src=${src} version=${version} />`;
  if (kind === "cmp" && src && what)
    return html`<${EvalCompare} before=${src} after=${what} open=${id} />`;
  if (kind !== "l" || !src) return html`<${SourceList} version=${version} />`;
  if (what === "e" && id)
    return html`<${EntityTree}
      src=${src}
      entity=${id}
      turn=${sub === "t" ? turn : undefined}
      version=${version}
    />`;
  if (what === "c" && id) return html`<${Compare} src=${src} fork=${id} version=${version} />`;
  return html`<${EntityList} src=${src} version=${version} />`;
}

function App(): VNode {
  const route = useRoute();
  const loom = route[0] === "l" ? route[1] : undefined;
  const version = useVersion(loom);
  useEffect(() => {
    if (route.length) return;
    void get<SourceItem[]>("/api/sources").then((s) => {
      if (s.length === 1 && s[0]!.kind === "loom") location.hash = `#/l/${s[0]!.id}`;
    });
  }, []);
  return html`<header>
      <a href="#/">spell view</a><span class="live">${isStatic ? "saved page" : "live"}</span>
    </header>
    <main><${View} route=${route} version=${version} /></main>`;
}

const style = document.createElement("style");
style.textContent = CSS;
document.head.appendChild(style);
render(html`<${App} />`, document.getElementById("app")!);
