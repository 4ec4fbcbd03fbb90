import type { LoopRecordView, SeatResponses } from "./types.js";

/**
 * One loop of the reasoning trace (§5.2). The executor allocates these only when observability
 * is on (§5.3: not built and discarded — never built); `newLoopRecord` is the one place that
 * makes them, and the executor takes it as a dependency so a test can count allocations.
 */
export class LoopRecord implements LoopRecordView {
  constructor(
    readonly loopNumber: number,
    readonly councilResponses: SeatResponses,
    readonly redTeamCritique: string,
    readonly deltaDetected: boolean,
  ) {}
}

export type LoopRecordFactory = (
  loopNumber: number,
  councilResponses: SeatResponses,
  redTeamCritique: string,
  deltaDetected: boolean,
) => LoopRecord;

export const newLoopRecord: LoopRecordFactory = (n, responses, critique, delta) =>
  new LoopRecord(n, responses, critique, delta);
