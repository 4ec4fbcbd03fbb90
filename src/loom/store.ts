import type { LoomRecord, Turn } from "./turn.js";

/** Where loom records go. Appends only: there is no update and no delete (LOOM-3). */
export interface LoomStore {
  append(record: LoomRecord): void;
  /** A turn record (`type: "turn"`), without building a wrapper object first. */
  appendTurn(turn: Turn): void;
  /** Records already stored, for a loom reopened from disk. */
  load(): LoomRecord[];
  close(): void;
  /** A description for messages ("memory", a file path). */
  readonly location: string;
}

export class MemoryStore implements LoomStore {
  readonly location = "memory";
  readonly records: LoomRecord[] = [];
  append(record: LoomRecord): void {
    this.records.push(record);
  }
  appendTurn(turn: Turn): void {
    this.records.push({ type: "turn", ...turn });
  }
  load(): LoomRecord[] {
    return [];
  }
  close(): void {}
}
