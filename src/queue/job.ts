/**
 * What one queued cast carries (docs/design/SCALE.md "What a job carries"): the spell's file
 * (an absolute path every worker must be able to read: the same files on every machine), the
 * LLM label of the eval's matrix, the case (intent, vars already in it, expectations), the repeat
 * index, the entity id assigned before it was queued (a worker that takes the job over continues
 * that entity), and the loom every worker writes to. No secret travels: keys come from each
 * worker's own environment, and a PostgreSQL loom is named without its password (loom.ts jobLoom).
 */
import type { EvalCase } from "../spell/kinds/index.js";
import type { CastOutcome } from "../eval/cast.js";

/** The BullMQ queue every `spell worker` takes casts from. */
export const QUEUE_NAME = "spellbook-casts";

export interface QueuedCast {
  /** The spell file, absolute. */
  spell: string;
  /** The matrix's `provider/model`, or undefined for the spell's own LLM. */
  llm: string | undefined;
  case: EvalCase;
  repeat: number;
  /** Assigned by the enqueuer: the job's id and the cast's entity. */
  entityId: string;
  /** Where the cast's turns go (a loom URL without its password); undefined: the worker's `--loom`. */
  loom: string | undefined;
}

/** A job's return value: the row and the judges' spend, as a local cast gives them. */
export type QueuedOutcome = CastOutcome;
