/**
 * `spell summon` / `spell familiar` in the full-screen terminal UI (issue 42; src/cli/tui/): the
 * same entity, the same events (redacted as line mode's are), the same loom; the UI only shows
 * them. Approvals go to its dialog. Used by summon.ts when stdin and stdout are terminals.
 */
import { basename } from "node:path";
import type { Entity } from "../core/entity.js";
import { errorMessage } from "../core/errors.js";
import { loopLimits } from "../core/outcome.js";
import { redactedText, redactingListener } from "../core/redact-stream.js";
import type { Loom } from "../loom/core/index.js";
import type { LoadedSpell } from "../spell/index.js";
import { displayPath, type CliIO } from "./io.js";
import { summaryLine } from "./run.js";
import { loadTui } from "./tui-load.js";
import type { CastOutcome } from "./tui/session.js";

/**
 * The session in the full-screen terminal UI (src/cli/tui/): the same entity, the same events
 * (redacted as line mode's are), the same loom; the UI only shows them. Approvals go to its
 * dialog. Resolves when the user ends the session.
 */
export async function screenSession(
  entity: Entity<Loom>,
  loaded: LoadedSpell,
  screen: {
    stdin: NodeJS.ReadStream;
    stdout: NodeJS.WriteStream;
    stderr?: NodeJS.WriteStream | undefined;
  },
  io: Pick<CliIO, "cwd" | "question">,
): Promise<void> {
  const { openTui } = await loadTui();
  const redact = (t: string): string => loaded.redactor.redact(t);
  const location = entity.cantrip.loom.store.location;
  const limits = loopLimits(entity.cantrip.circle.wards);
  const tui = openTui({
    status: {
      spell: loaded.name || basename(loaded.file),
      model: entity.cantrip.llm.name,
      entityId: entity.id,
      loom: displayPath(io.cwd, location),
      limits,
      turn: entity.cantrip.loom.lastTurnOf(entity.id)?.sequence ?? 0,
    },
    recorded: (turnId) => {
      const turn = entity.cantrip.loom.get(turnId);
      return turn && { utterance: redact(turn.utterance), observation: redact(turn.observation) };
    },
    subscribe: (listener) => entity.bus.on(redactingListener(listener, loaded.redactor)),
    cast: (intent, signal) => castOnce(entity, intent, signal, redact, location),
    redact,
    stdin: screen.stdin,
    stdout: screen.stdout,
    ...(screen.stderr ? { stderr: screen.stderr } : {}),
  });
  const lineQuestion = io.question;
  io.question = (text, signal, request) =>
    request ? tui.ask(request, signal) : Promise.resolve(null);
  try {
    await tui.closed;
  } finally {
    io.question = lineQuestion;
  }
}

/** One intent sent to the entity, told as the UI tells a cast's end (redacted; never throws). */
async function castOnce(
  entity: Entity<Loom>,
  intent: string,
  signal: AbortSignal,
  redact: (t: string) => string,
  location: string,
): Promise<CastOutcome> {
  try {
    const result = await entity.send(intent, { signal });
    if (result.status === "failed")
      return {
        error: redact(
          `send failed: ${errorMessage(result.error)}\nthe loom keeps every turn recorded before the failure (${location})`,
        ),
      };
    return {
      text: redactedText(result.result, redact, 2),
      summary: redact(summaryLine(result, location)).trimEnd(),
      usage: result.usage,
    };
  } catch (err) {
    return { error: redact(`send failed: ${errorMessage(err)}`) };
  }
}
