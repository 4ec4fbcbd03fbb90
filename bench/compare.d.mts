// The types of compare.mjs (plain JavaScript, so `npm run bench` runs it with node).

/** One row of a bench run (bench/report.mjs's `row()`). */
export interface BenchRow {
  bench: string;
  name: string;
  value?: number;
  min?: number;
  max?: number;
  rounds?: number;
  unit?: string;
  text?: string;
  better?: "lower" | "higher";
  paired?: boolean;
  target?: string;
  ok?: boolean;
}

/** A bench run as bench/run.mjs writes it. */
export interface BenchRun {
  version?: number;
  date?: string;
  commit?: string;
  benches?: Record<string, unknown>;
  rows: BenchRow[];
}

export type Verdict = "worse" | "better" | "same" | "info";

export interface ComparedRow {
  key: string;
  status: Verdict | "new" | "missing";
  ratio?: number | null;
  was?: BenchRow;
  now?: BenchRow;
}

export interface Comparison {
  rows: ComparedRow[];
  /** The load average at each bench's start and end, in the recorded run and now. */
  loads?: { bench: string; was?: number[] | undefined; now?: number[] | undefined }[];
  flagged: number;
  notRun: number;
  tolerance: number;
}

export declare const DEFAULT_TOLERANCE: number;
export declare const MIN_ROUNDS: number;
export declare function judge(recorded: BenchRow, now: BenchRow, tolerance?: number): Verdict;
export declare function compareRuns(
  recorded: BenchRun,
  current: BenchRun,
  tolerance?: number,
): Comparison;
export declare function formatComparison(comparison: Comparison): string[];
export declare function readRun(path: string): BenchRun;
export declare function toleranceArg(argv: readonly string[]): number;
