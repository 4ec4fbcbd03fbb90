/// <reference lib="dom" />
/**
 * How numbers and times read on the page: rounded for people (66.7%, $0.0012, 1.2 s); the exact
 * value goes in the element's title (`exact`) and in the downloads.
 */
export const tokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
/** Dollars: cents for a dollar or more, two significant digits below ($0.012, $0.0012). */
export const usd = (n: number | null) =>
  n === null
    ? "–"
    : n === 0
      ? "$0"
      : Math.abs(n) >= 1
        ? `$${n.toFixed(2)}`
        : `$${Number(n.toPrecision(2)).toString()}`;
export const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
/** A rate in [0, 1] as a percentage with one decimal (0.6666… → 66.7%); "n/a" when not a number. */
export const pct = (x: number | null) =>
  x === null || Number.isNaN(x) ? "n/a" : `${(100 * x).toFixed(1).replace(/\.0$/, "")}%`;
/** The exact value, for a title (hover). */
export const exact = (x: number | null) => (x === null ? "" : String(x));
export const when = (iso: string) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "");
export const reward = (r: number | null) => (r === null ? "–" : String(Number(r.toPrecision(4))));
export const status = (end: string | null) => end ?? "open";
export const short = (text: string, n = 120) => (text.length > n ? `${text.slice(0, n)}…` : text);
