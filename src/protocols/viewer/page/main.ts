/// <reference lib="dom" />
/**
 * The viewer page (bundled by scripts/bundle.mjs into dist/viewer.js with preact and htm): a
 * router over the address's fragment, and the live part — while a loom is shown, its
 * `stat` is asked every second, and a new version (turns landed) makes the lists in sight
 * ask again; nothing reloads. While the server still reads the loom (a big one, in the
 * background: `reading` in its stat), the header says "reading…".
 */
import { render, type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useErrorBoundary, useState } from "preact/hooks";
import { get, isStatic } from "./api.js";
import { Compare } from "./compare.js";
import { EvalCompare } from "./eval-compare.js";
import { EvalRun } from "./evals.js";
import { EntityList, SourceList, type SourceItem } from "./list.js";
import { CSS } from "./style.js";
import { EntityTree } from "./tree.js";
import { failureText, GetFailed } from "./use-get.js";

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

/**
 * The version of the loom shown (or of the sources), asked at once and again every second, and
 * whether the server is still reading the loom.
 */
function useVersion(loom: string | undefined): { version: number; reading: boolean } {
  const [version, setVersion] = useState(0);
  const [reading, setReading] = useState(false);
  useEffect(() => {
    setReading(false);
    if (isStatic) return undefined;
    let last = -1;
    const look = () =>
      void (
        loom === undefined
          ? get<SourceItem[]>("/api/sources").then((s) => s.length)
          : get<{ version: number; reading?: boolean }>(`/api/l/${loom}/stat`).then((s) => {
              setReading(s.reading === true);
              return s.version;
            })
      )
        .then((v) => {
          if (v !== last) {
            last = v;
            setVersion((n) => n + 1);
          }
        })
        .catch(() => undefined);
    look();
    const timer = setInterval(look, POLL_MS);
    return () => clearInterval(timer);
  }, [loom]);
  return { version, reading };
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

/**
 * The view at this address, or what failed when it could not be shown: an address naming no such
 * loom, entity or eval run (or a server gone) says so instead of "Loading…" for ever. The next
 * address starts afresh.
 */
function Shown({ route, version }: { route: string[]; version: number }): VNode {
  const [error, reset] = useErrorBoundary() as [unknown, () => void];
  const at = route.join("/");
  useEffect(() => {
    if (error) reset();
  }, [at]);
  if (error)
    return html`<section class="failed" role="alert" data-failed>
      <h2>Nothing to show at this address</h2>
      <p>
        ${error instanceof GetFailed ? error.message : `the page failed: ${failureText(error)}`}
      </p>
      <p><a href="#/">the looms and eval runs</a></p>
    </section>`;
  return html`<${View} route=${route} version=${version} />`;
}

function App(): VNode {
  const route = useRoute();
  const loom = route[0] === "l" ? route[1] : undefined;
  const { version, reading } = useVersion(loom);
  useEffect(() => {
    if (route.length) return;
    void get<SourceItem[]>("/api/sources").then((s) => {
      if (s.length === 1 && s[0]!.kind === "loom") location.hash = `#/l/${s[0]!.id}`;
    });
  }, []);
  return html`<header>
      <a href="#/">spell view</a><span class="live">${isStatic ? "saved page" : "live"}</span>
      ${
        reading
          ? html`<span class="live" data-reading role="status">reading the loom…</span>`
          : null
      }
    </header>
    <main><${Shown} route=${route} version=${version} /></main>`;
}

const style = document.createElement("style");
style.textContent = CSS;
document.head.appendChild(style);
render(html`<${App} />`, document.getElementById("app")!);
