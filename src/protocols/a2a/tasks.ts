/**
 * The A2A tasks `spell serve` remembers, in memory and bounded (the SDK's InMemoryTaskStore keeps
 * every task for ever): at most `limit` (`--max-sessions`); past it the oldest task that has
 * ended is forgotten (a running one never is — casts at once are bounded by --max-concurrent).
 * Copies go in and out, as the SDK's store does.
 *
 * ListTasks is scoped to the caller (issue 38): every client of a `spell serve` holds the same
 * token (or none, on loopback), so what sets one client's tasks apart is its context — the
 * `contextId` its first message was answered with (a random UUID), which it sends again to go
 * on. A listing names its context and shows only that context's tasks; one that names none is
 * refused, never answered with every client's tasks. A task itself is read by its id (also a
 * random UUID, known only to whoever sent it).
 */
import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { TaskStore } from "@a2a-js/sdk/server";

/** TaskState values that end a task (completed, failed, canceled, rejected). */
const ENDED = new Set([3, 4, 5, 7]);

export class BoundedTaskStore implements TaskStore {
  /** By id, oldest first (a Map keeps insertion order). */
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly limit: number) {}

  save(task: Task): Promise<void> {
    this.tasks.set(task.id, structuredClone(task));
    for (const [id, t] of this.tasks) {
      if (this.tasks.size <= this.limit) break;
      if (t.status?.state !== undefined && ENDED.has(t.status.state)) this.tasks.delete(id);
    }
    return Promise.resolve();
  }

  load(taskId: string): Promise<Task | undefined> {
    const task = this.tasks.get(taskId);
    return Promise.resolve(task && structuredClone(task));
  }

  /** The tasks of the context the caller names, newest first, one page. */
  list(params: ListTasksRequest): Promise<ListTasksResponse> {
    if (!params.contextId)
      return Promise.reject(
        new RequestMalformedError(
          "ListTasks needs a contextId: a client sees only the tasks of its own context (the contextId its messages were answered with)",
        ),
      );
    const all = [...this.tasks.values()]
      .filter((t) => t.contextId === params.contextId)
      .filter((t) => !params.status || t.status?.state === params.status)
      .reverse();
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    const tasks = all.slice(0, pageSize).map((t) => structuredClone(t));
    return Promise.resolve({ tasks, nextPageToken: "", pageSize, totalSize: all.length });
  }
}
