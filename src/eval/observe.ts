/**
 * What an eval run lets a watcher of its casts see (`spell eval --otel`, src/cli/otel/eval-spans.ts):
 * each cast's events, its judges' LLMs (to wrap) and its row once assessed. The run knows
 * nothing of OpenTelemetry; without a watcher nothing changes.
 */
import type { LLM } from "../core/contract.js";
import type { EventListener } from "../core/events.js";
import type { ResultRow } from "./summary.js";

/** The cast about to run. */
export interface CastInfo {
  /** The spell's file name (the row's `spell`) and its own `name:`. */
  spell: string;
  name: string;
  /** `provider/model` of the cast (the row's `llm`). */
  llm: string;
  case: string;
  repeat: number;
  /** The run's redactor (every provider key, every `${env:…}` secret of the spells). */
  redact: (text: string) => string;
}

export interface CastObserver {
  onEvent: EventListener;
  /** The judge's LLM as this cast's assessment queries it. */
  judge(llm: LLM): LLM;
  /** The cast's row, once assessed (also for a cast that failed). */
  end(row: ResultRow): void;
}

export type CastWatcher = (cast: CastInfo) => CastObserver | undefined;
