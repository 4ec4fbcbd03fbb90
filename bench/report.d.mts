// The types of report.mjs (plain JavaScript, so the benches run it with node).

export interface Spread {
  median: number;
  min: number;
  max: number;
  rounds: number;
}

export interface RowOptions {
  unit?: string;
  better?: "lower" | "higher";
  paired?: boolean;
  target?: string;
  ok?: boolean;
  digits?: number;
  note?: string;
}

export declare const rounds: (n: number) => number;
export declare function row(
  name: string,
  figure: number | string | Spread,
  opts?: RowOptions,
): Record<string, unknown>;
export declare function spread(xs: readonly number[]): Spread;
