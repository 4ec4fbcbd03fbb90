/**
 * `spell run FILE --resume ENTITY`: which entity a run casts as. A run against a loom file is
 * named before it starts (newEntityId) and cast with `resumeEntity`, so it is registered beside
 * the loom with its spell and can be continued after Ctrl-C, a crash or a kill -9: `--resume ID`
 * (or `--resume last`, the spell's last entity in that loom) continues its recorded cast, with
 * the intent it recorded. A memory loom keeps nothing to continue.
 */
import { resolve } from "node:path";
import type { CastResult } from "../core/result.js";
import type { LLM } from "../core/contract.js";
import { ConfigError, SpellbookError } from "../core/errors.js";
import { ScriptedLLM } from "../llm/providers/scripted.js";
import { unpriced } from "../llm/priced.js";
import { newEntityId } from "../core/ids.js";
import type { Loom } from "../loom/core/index.js";
import { checkEntityId, readState } from "../loom/entities/index.js";
import { INTERRUPTIONS } from "../loom/records/index.js";
import { lastEntityOf } from "./last-entity.js";

export interface RunTarget {
  entityId: string;
  /** The intent the entity's cast recorded; null when it has no turn yet (cast the spell's). */
  intent: string | null;
  /** Replies the LLM gave the unfinished recorded cast (turns not cut off): a script goes on after them. */
  answered: number;
}

/** The entity this run casts as; undefined for a memory loom without --resume (a plain cast). */
export function runTarget(
  file: string,
  resumeId: string | undefined,
  loom: Loom,
): RunTarget | undefined {
  const loomFile = loom.store.file;
  if (loomFile === undefined) {
    if (resumeId === undefined) return undefined;
    throw new ConfigError(
      "resume_unsupported",
      "--resume needs a loom file (--loom FILE or the spell's loom.path): a memory loom keeps nothing after its run",
    );
  }
  if (resumeId === undefined) return { entityId: newEntityId(), intent: null, answered: 0 };
  const id = resumeId === "last" ? lastEntityOf(file, loomFile) : resumeId;
  if (id === undefined)
    throw new ConfigError("unknown_entity", `no entity of ${file} in loom ${loomFile} to resume`);
  checkEntityId(id);
  const entry = readState(loomFile).entities[id];
  const turns = loom.lastTurnOf(id) !== undefined;
  if (!entry && !turns)
    throw new ConfigError("unknown_entity", `no entity ${id} in loom ${loomFile}`);
  if (entry?.spell && entry.spell !== resolve(file))
    throw new ConfigError(
      "resume_other_spell",
      `entity ${id} was cast from ${entry.spell}, not ${resolve(file)}: resume it with its own spell`,
    );
  const cast = turns ? loom.resumeEntity(id, null)?.cast : undefined;
  // A cast that had ended gives back its result without asking: no reply to go on from.
  const answered = cast && !cast.end ? cast.answered : 0;
  return { entityId: id, intent: cast?.intent ?? null, answered };
}

/**
 * A scripted llm goes on at the reply after the ones the recorded cast used (each answered turn
 * took one): resumed, it never gives the first replies again. Counted from the entity's own turns:
 * a reply that made no turn (an `error:` reply) or that a child entity took is not counted.
 */
export function continueScript(llm: LLM, target: RunTarget | undefined): void {
  const scripted = unpriced(llm);
  if (target && target.answered > 0 && scripted instanceof ScriptedLLM)
    scripted.skip(target.answered);
}

/** What to do before the resume command: add replies, when the script ran out. */
export function resumeAdvice(err: unknown): string {
  return err instanceof SpellbookError && err.code === "script_exhausted"
    ? "add replies under llm.responses, then resume with"
    : "resume with";
}

/** The command that continues this run's cast, when it stopped without ending (else undefined). */
export function resumeCommand(
  file: string,
  loomFlag: string | undefined,
  target: RunTarget | undefined,
  result: CastResult | undefined,
): string | undefined {
  if (!target) return undefined;
  const stopped =
    !result || result.status === "failed" || (result.truncated && INTERRUPTIONS.has(result.reason));
  if (!stopped) return undefined;
  const loom = loomFlag === undefined ? "" : ` --loom ${loomFlag}`;
  return `spell run ${file} --resume ${target.entityId}${loom}`;
}
