/**
 * What one queued cast carries (docs/design/SCALE.md "What a job carries"): the spell's file
 * (an absolute path every worker must be able to read: the same files on every machine), the
 * LLM label of the eval's matrix, the case (intent, vars already in it, expectations), the repeat
 * index, the entity id assigned before it was queued (a worker that takes the job over continues
 * that entity), and the loom every worker writes to. No secret travels: keys come from each
 * worker's own environment, and a PostgreSQL loom is named without its password (loom.ts jobLoom).
 */
import { ConfigError } from "../core/errors.js";
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
  /** Which cast of its run it is (eval/run.ts): a scripted model's replies follow from it. */
  seat?: number | undefined;
  /** Assigned by the enqueuer: the job's id and the cast's entity. */
  entityId: string;
  /** Where the cast's turns go (a loom URL without its password); undefined: the worker's `--loom`. */
  loom: string | undefined;
}

/** A job's return value: the row and the judges' spend, as a local cast gives them. */
export type QueuedOutcome = CastOutcome;

/** How a value is named in a refusal: its kind (a number as it is), never its text. */
function kindOf(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return "text";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A job's data as a cast, or a `queue_job` error naming the first field that is not what a cast
 * carries. Anyone who can write to the Redis can add a job with any data (`null`, a number, a
 * case without an intent): it is refused here, before the worker reads any field of it.
 */
export function castOf(data: unknown): QueuedCast {
  const refuse = (field: string, value: unknown, wanted: string) =>
    new ConfigError(
      "queue_job",
      `a queued job is not a cast: ${field} is ${kindOf(value)}, not ${wanted}`,
    );
  if (!isMapping(data))
    throw refuse("its data", data, "a mapping of spell, case, repeat, entityId");
  const { spell, llm, repeat, entityId, loom } = data;
  const c = data["case"];
  if (typeof spell !== "string") throw refuse("its spell", spell, "a file's path");
  if (llm !== undefined && typeof llm !== "string") throw refuse("its llm", llm, "provider/model");
  if (!isMapping(c)) throw refuse("its case", c, "a mapping of id, intent, expect, location");
  for (const key of ["id", "intent", "location"])
    if (typeof c[key] !== "string") throw refuse(`its case's ${key}`, c[key], "text");
  const expect = c["expect"];
  if (!Array.isArray(expect)) throw refuse("its case's expect", expect, "a list of assertions");
  const bad: unknown = expect.find((a) => !isMapping(a));
  if (bad !== undefined) throw refuse("an assertion of its case", bad, "a mapping");
  const intents = c["intents"];
  if (intents !== undefined) {
    if (!isMapping(intents)) throw refuse("its case's intents", intents, "a mapping of spells");
    const odd = Object.values(intents).find((i) => typeof i !== "string");
    if (odd !== undefined) throw refuse("an intent of its case", odd, "text");
  }
  if (typeof repeat !== "number" || !Number.isSafeInteger(repeat) || repeat < 0)
    throw refuse("its repeat", repeat, "a whole number from 0");
  const { seat } = data;
  if (seat !== undefined && (typeof seat !== "number" || !Number.isSafeInteger(seat) || seat < 0))
    throw refuse("its seat", seat, "a whole number from 0");
  if (typeof entityId !== "string" || entityId === "")
    throw refuse("its entityId", entityId, "an entity id");
  if (loom !== undefined && typeof loom !== "string") throw refuse("its loom", loom, "a loom URL");
  return data as unknown as QueuedCast;
}
