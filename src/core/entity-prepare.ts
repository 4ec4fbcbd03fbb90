import type { Message } from "./contract.js";
import type { EntitySource } from "./entity-options.js";
import { ConfigError, SpellbookError } from "./errors.js";
import type { MediumSession, RebuildTurn } from "./medium.js";

/**
 * Before a cast (entity.ts `send`), the entity's context and medium are brought up to date:
 * the circle's presentation prepared when part of it lives outside the spell, and the medium's
 * state rebuilt from the loom for a fork or a resumed entity.
 */

/**
 * A circle whose presentation lives partly outside the spell (MCP tools) is prepared before
 * each cast; the fixed head of the context, when it was built from an older presentation, is
 * built again (before the first turn of a fresh entity, or at the head of a fork's history).
 */
export async function prepareCircle(
  cantrip: Pick<EntitySource, "initialMessages" | "prepare">,
  history: Message[],
): Promise<void> {
  const before = cantrip.initialMessages();
  await cantrip.prepare?.();
  const after = cantrip.initialMessages();
  const same = (m: Message, i: number) =>
    m.role === history[i]?.role && m.content === history[i]?.content;
  if (after.length === before.length && before.every(same))
    history.splice(0, before.length, ...after);
}

/** LOOM-13: the medium rebuilds its state from the loom; a divergence is the send's error. */
export async function rebuildMedium(
  session: MediumSession,
  turns: readonly RebuildTurn[],
  of: { mediumName: string; entityId: string; fork: boolean; signal?: AbortSignal },
): Promise<void> {
  if (!session.rebuild)
    throw new ConfigError(
      "replay_unsupported",
      `the ${of.mediumName} medium has no state to replay`,
    );
  try {
    await session.rebuild(turns, of.signal ?? new AbortController().signal);
  } catch (err) {
    // A resumed entity is not a fork: say which it was.
    if (of.fork || !(err instanceof SpellbookError)) throw err;
    err.message = err.message.replace(/^cannot fork:/, `cannot resume ${of.entityId}:`);
    throw err;
  }
}
