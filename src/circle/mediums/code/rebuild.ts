/**
 * Rebuild: recorded code turns run again in a fresh sandbox (LOOM-4, LOOM-13). Each turn's
 * code runs again, and every gate it calls is answered from the loom's record of that call — the gate
 * itself never runs, so a counter does not move and a side effect does not happen twice.
 * A turn whose rebuild calls other gates, or renders another observation, has diverged: the
 * rebuild stops with an error naming the turn, never silently.
 */
import { ConfigError } from "../../../core/errors.js";
import type { GateCallRecord, RebuildTurn } from "../../medium.js";
import { laterRefusal } from "../../gate-budget.js";
import { DONE } from "../../gate-names.js";
import { renderObservation } from "./observation.js";
import type { GateReply, Sandbox } from "../../../sandbox/index.js";

/**
 * A recorded result back as the value the code saw. The record keeps strings as they are and
 * anything else as JSON, so JSON is parsed and other text stays text; a gate that returned a
 * string that reads as JSON ("42") comes back parsed — and if that changes what the turn
 * rendered, the rebuild reports the divergence.
 */
function hydrate(record: GateCallRecord): unknown {
  try {
    return JSON.parse(record.result) as unknown;
  } catch {
    return record.result;
  }
}

const diverged = (turn: RebuildTurn, why: string) =>
  new ConfigError(
    "fork_replay_diverged",
    `cannot fork: turn ${turn.sequence} (${turn.id}) replays differently: ${why}`,
  );

export async function rebuildTurns(
  sandbox: Sandbox,
  turns: readonly RebuildTurn[],
  signal: AbortSignal,
  aliases: Readonly<Record<string, string>>,
): Promise<void> {
  for (const turn of turns) {
    const calls = turn.gateCalls;
    const seen: GateCallRecord[] = [];
    let problem: string | null = null;
    const out = await sandbox.evaluate(turn.utterance, {
      signal,
      callGate: (name): GateReply => {
        // Past the turn's budget every call was refused; only the first refusal was recorded.
        const refused = seen.length ? laterRefusal(seen[seen.length - 1]!) : undefined;
        if (refused !== undefined) return { ok: false, message: refused };
        const record = calls[seen.length];
        const gate = aliases[name] ?? name;
        if (!record || record.gate_name !== gate) {
          problem ??= `it calls ${gate} where the loom has ${record?.gate_name ?? "no call"}`;
          return { ok: false, message: "replay diverged from the loom" };
        }
        seen.push(record);
        if (record.is_error) return { ok: false, message: record.result };
        const value = hydrate(record);
        return gate === DONE ? { ok: true, value, stop: true } : { ok: true, value };
      },
    });
    if (problem !== null) throw diverged(turn, problem);
    if (out.crashed) throw diverged(turn, "the sandbox crashed");
    if (seen.length !== calls.length)
      throw diverged(turn, `it made ${seen.length} gate calls, the loom has ${calls.length}`);
    const observation = renderObservation(seen, out);
    if (observation !== turn.observation)
      throw diverged(
        turn,
        `its observation is ${JSON.stringify(observation.slice(0, 200))}, the loom has ${JSON.stringify(turn.observation.slice(0, 200))}`,
      );
  }
}
