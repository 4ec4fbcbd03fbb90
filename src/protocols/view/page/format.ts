/// <reference lib="dom" />
/** How numbers and times read on the page. */
export const tokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
export const usd = (n: number | null) => (n === null ? "–" : `$${n.toFixed(n < 0.01 ? 4 : 2)}`);
export const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
export const when = (iso: string) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "");
export const reward = (r: number | null) => (r === null ? "–" : String(r));
export const status = (end: string | null) => end ?? "open";
export const short = (text: string, n = 120) => (text.length > n ? `${text.slice(0, n)}…` : text);
