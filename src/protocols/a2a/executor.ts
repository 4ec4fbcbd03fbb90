/**
 * The A2A agent executor of `spell serve`: one task is one cast of the spell. The task is
 * published, then a working status; each turn of the cast is a working status update (its
 * `metadata.spellbook.turn` the turn's sequence); a terminated cast's answer is the task's
 * artifact, then the task completes. `tasks/cancel` aborts the cast ("cancelled": the loom
 * records it truncated) and the task ends canceled; a cast cut by a ward or failed ends failed,
 * saying why. A data part is the spell's inputs, checked by castIntent before any cast. Casts
 * count against the server's bound on casts at once, and the server's observer (`--otel`) sees
 * each as it sees a POST /cast.
 */
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Part, type TaskStatus } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import type { Cantrip } from "../../core/cantrip.js";
import type { CantripEvent } from "../../core/events.js";
import type { CastResult } from "../../core/result.js";
import type { Loom } from "../../loom/core/index.js";
import { renderResult } from "../../circle/gate.js";
import { ConfigError } from "../../core/errors.js";
import { isJsonObject } from "../../core/json.js";
import { castIntent, type CallableSpell, type SpellCall } from "../../spell/inputs.js";
import type { CastSlots } from "../http/cast-route.js";

const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  mediaType: "text/plain",
  filename: "",
  metadata: {},
});

/**
 * The call a message makes: its text parts (blank-line joined) are the intent, its data part
 * (one JSON object) the spell's named inputs. castIntent checks both, as on every surface.
 */
export function callOf(message: Message): SpellCall {
  const text = message.parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .filter((t) => t.trim() !== "")
    .join("\n\n");
  const data = message.parts.flatMap((p) =>
    p.content?.$case === "data" ? [p.content.value as unknown] : [],
  );
  if (data.length > 1) throw new ConfigError("bad_input", "send the inputs as one data part");
  const inputs = data[0];
  if (inputs !== undefined && !isJsonObject(inputs))
    throw new ConfigError("bad_input", "the data part must be a JSON object of the inputs");
  return { intent: text === "" ? undefined : text, inputs };
}

/** The intent a message casts, or why it casts nothing (`code: message`). */
async function intentOf(spell: CallableSpell, message: Message): Promise<string | ConfigError> {
  try {
    return await castIntent(spell, callOf(message));
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
}

/** What one task publishes: its statuses, each with an agent message when there is text. */
function taskEvents(request: RequestContext, bus: ExecutionEventBus) {
  const { taskId, contextId } = request;
  const status = (state: TaskState, text?: string): TaskStatus => ({
    state,
    message:
      text === undefined
        ? undefined
        : {
            messageId: randomUUID(),
            contextId,
            taskId,
            role: Role.ROLE_AGENT,
            parts: [textPart(text)],
            metadata: {},
            extensions: [],
            referenceTaskIds: [],
          },
    timestamp: new Date().toISOString(),
  });
  return {
    status,
    update: (state: TaskState, text?: string, metadata: Record<string, unknown> = {}) =>
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId, status: status(state, text), metadata }),
      ),
    submitted: () =>
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: request.task?.history ?? [request.userMessage],
          metadata: {},
        }),
      ),
  };
}

export function spellExecutor(
  cantrip: Cantrip<Loom>,
  spell: CallableSpell,
  slots: CastSlots,
): AgentExecutor {
  const running = new Map<string, AbortController>();
  return {
    async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const { taskId, contextId } = request;
      const task = taskEvents(request, bus);
      task.submitted();
      const intent = await intentOf(spell, request.userMessage);
      if (intent instanceof Error || slots.running >= slots.limit) {
        if (intent instanceof ConfigError)
          // No text and no intent: template: rejected, as before; a bad input fails the task.
          task.update(
            intent.code === "missing_intent"
              ? TaskState.TASK_STATE_REJECTED
              : TaskState.TASK_STATE_FAILED,
            `${intent.code}: ${intent.message}`,
          );
        else
          task.update(
            TaskState.TASK_STATE_FAILED,
            `${slots.limit} casts are running; try again shortly`,
          );
        return bus.finished();
      }
      const controller = new AbortController();
      running.set(taskId, controller);
      slots.running++;
      try {
        task.update(TaskState.TASK_STATE_WORKING);
        const result = await cantrip.cast(intent, {
          signal: controller.signal,
          onEvent: alsoObserved(
            turnUpdates((turn, text) =>
              task.update(TaskState.TASK_STATE_WORKING, text, { spellbook: turn }),
            ),
            slots.observe?.(),
          ),
        });
        finish(result, taskId, contextId, bus, task.status);
      } finally {
        slots.running--;
        running.delete(taskId);
        bus.finished();
      }
    },
    cancelTask(taskId: string): Promise<void> {
      // The cast's own end publishes the canceled status (execute, above).
      running.get(taskId)?.abort("cancelled");
      return Promise.resolve();
    },
  };
}

/** The task's listener, and the server's observer (`--otel` spans) when there is one. */
function alsoObserved(
  own: (e: CantripEvent) => void,
  observer: ((e: CantripEvent) => void) | undefined,
): (e: CantripEvent) => void {
  if (!observer) return own;
  return (e) => {
    observer(e);
    own(e);
  };
}

/** A listener that tells each turn of the cast's own entity (not its children's) as it ends. */
function turnUpdates(
  tell: (turn: Record<string, unknown>, text: string) => void,
): (e: CantripEvent) => void {
  let root: string | undefined;
  let said: string | null = null;
  return (e) => {
    root ??= e.entityId;
    if (e.entityId !== root) return;
    if (e.type === "message_complete") said = e.content;
    if (e.type !== "step_complete") return;
    const text = said?.trim() || (e.gates.length ? `called ${e.gates.join(", ")}` : "");
    said = null;
    tell({ turn: e.sequence, gates: e.gates, outcome: e.outcome, turn_id: e.turnId }, text);
  };
}

function finish(
  result: CastResult<Loom>,
  taskId: string,
  contextId: string,
  bus: ExecutionEventBus,
  status: (state: TaskState, text?: string) => TaskStatus,
): void {
  const metadata = {
    spellbook: {
      status: result.status,
      reason: result.reason,
      turns: result.turns,
      entity_id: result.entityId,
      last_turn_id: result.lastTurnId,
    },
  };
  const end = (state: TaskStatus) =>
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: state, metadata }));
  if (result.status === "terminated") {
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: `${taskId}-result`,
          name: "result",
          description: "The spell's answer.",
          parts: [textPart(renderResult(result.result))],
          metadata: {},
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: {},
      }),
    );
    return end(status(TaskState.TASK_STATE_COMPLETED));
  }
  if (result.status === "truncated")
    return end(
      result.reason === "cancelled"
        ? status(TaskState.TASK_STATE_CANCELED, "the task was cancelled")
        : status(TaskState.TASK_STATE_FAILED, `the cast ended truncated (${result.reason})`),
    );
  end(status(TaskState.TASK_STATE_FAILED, `${result.error.code}: ${result.error.message}`));
}
