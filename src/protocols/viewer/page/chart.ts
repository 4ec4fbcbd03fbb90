/// <reference lib="dom" />
/**
 * A line chart drawn by uPlot (canvas, bundled with the page: docs/design/VIEWER.md says why
 * uPlot): lines over a shared x, optional vertical marks (p50, p95) drawn on the plot. The canvas
 * is a picture: the element carries a label for screen readers and each chart is followed by its
 * numbers as a table (the caller's).
 */
import { type VNode } from "preact";
import { html } from "htm/preact";
import { useEffect, useRef } from "preact/hooks";
import type uPlot from "uplot";

/** Colours with a contrast of at least 4.5:1 on white. */
export const COLORS = ["#1f4fbf", "#a34800", "#17703a", "#7a2e9e", "#8a1c3c", "#005f73"];

export interface Line {
  label: string;
  values: (number | null)[];
  color?: string;
  dash?: number[];
}

export interface Mark {
  x: number;
  label: string;
  color?: string;
}

export interface ChartProps {
  /** What the chart shows, in words (aria-label). */
  label: string;
  x: number[];
  lines: Line[];
  marks?: Mark[];
  xLabel: string;
  yLabel: string;
  /** Formats an x or y value on the axes and in the legend. */
  xFormat?: (v: number) => string;
  yFormat?: (v: number) => string;
  yRange?: [number, number];
  /** Whole-number ticks on x (k). */
  integerX?: boolean;
  /** Step lines (a distribution's cumulative share). */
  stepped?: boolean;
  width?: number;
  height?: number;
  name: string;
}

type UPlot = typeof uPlot;

/**
 * uPlot and its stylesheet, evaluated on the first chart (bundled in the same script: esbuild
 * turns this import() into a call within the bundle, no request) — a page that draws no chart,
 * the loom's tree above all, does not pay for it.
 */
let loading: Promise<UPlot> | undefined;
function loadUPlot(): Promise<UPlot> {
  return (loading ??= Promise.all([import("uplot"), import("uplot/dist/uPlot.min.css")]).then(
    ([lib, css]) => {
      const style = document.createElement("style");
      style.textContent = css.default;
      document.head.appendChild(style);
      return lib.default;
    },
  ));
}

/** Each mark a dashed vertical line across the plot, its label at the top. */
const drawMarks = (marks: Mark[]) => (u: uPlot) => {
  const { ctx } = u;
  for (const m of marks) {
    const left = u.valToPos(m.x, "x", true);
    ctx.save();
    ctx.strokeStyle = m.color ?? "#5a6478";
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(left, u.bbox.top);
    ctx.lineTo(left, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.fillStyle = "#1d2433";
    ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
    ctx.fillText(m.label, left + 4, u.bbox.top + 12 * devicePixelRatio);
    ctx.restore();
  }
};

function options(props: ChartProps, lib: UPlot): uPlot.Options {
  const fx = props.xFormat ?? ((v: number) => String(v));
  const fy = props.yFormat ?? ((v: number) => String(v));
  return {
    width: props.width ?? 460,
    height: props.height ?? 220,
    // The key is the page's (below the chart), the values are in the table after it.
    legend: { show: false },
    scales: {
      x: { time: false },
      y: props.yRange ? { range: props.yRange } : { auto: true },
    },
    axes: [
      {
        label: props.xLabel,
        values: (_u, vals) => vals.map((v) => (v === null ? "" : fx(v))),
        stroke: "#1d2433",
        ...(props.integerX ? { incrs: [1, 2, 5, 10, 20, 50, 100] } : {}),
      },
      {
        label: props.yLabel,
        values: (_u, vals) => vals.map((v) => (v === null ? "" : fy(v))),
        stroke: "#1d2433",
        size: 56,
      },
    ],
    series: [
      { label: props.xLabel },
      ...props.lines.map((l, i) => ({
        label: l.label,
        stroke: l.color ?? COLORS[i % COLORS.length]!,
        width: 2,
        ...(l.dash ? { dash: l.dash } : {}),
        ...(props.stepped ? { paths: lib.paths.stepped!({ align: 1 }) } : {}),
        points: { show: props.x.length <= 20 },
      })),
    ],
    hooks: { draw: [drawMarks(props.marks ?? [])] },
  };
}

function Key({ lines }: { lines: Line[] }): VNode {
  return html`<figcaption class="key">
    ${lines.map(
      (l, i) =>
        html`<span class="key-item"
          ><span
            class=${`swatch ${l.dash ? "dashed" : ""}`}
            style=${`border-color:${l.color ?? COLORS[i % COLORS.length]}`}
          ></span
          >${l.label}</span
        >`,
    )}
  </figcaption>`;
}

export function Chart(props: ChartProps): VNode {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let plot: uPlot | undefined;
    let live = true;
    void loadUPlot().then((lib) => {
      if (!live || !box.current) return;
      const data = [props.x, ...props.lines.map((l) => l.values)] as uPlot.AlignedData;
      plot = new lib(options(props, lib), data, box.current);
    });
    return () => {
      live = false;
      plot?.destroy();
    };
  }, [JSON.stringify([props.x, props.lines, props.marks, props.yRange, props.width])]);
  return html`<figure class="chart" data-chart=${props.name}>
    <div ref=${box} role="img" aria-label=${props.label}></div>
    <${Key} lines=${props.lines} />
  </figure>`;
}
