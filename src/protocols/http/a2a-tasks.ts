/**
 * The A2A tasks `spell serve` remembers, in memory and bounded (the SDK's InMemoryTaskStore keeps
 * every task for ever): at most `limit` (`--max-sessions`); past it the oldest task that has
 * ended is forgotten (a running one never is — casts at once are bounded by --max-concurrent).
 * Copies go in and out, as the SDK's store does.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
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

  /** The tasks of a context (every one when none is named), newest first, one page. */
  list(params: ListTasksRequest): Promise<ListTasksResponse> {
    const all = [...this.tasks.values()]
      .filter((t) => !params.contextId || t.contextId === params.contextId)
      .filter((t) => !params.status || t.status?.state === params.status)
      .reverse();
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    const tasks = all.slice(0, pageSize).map((t) => structuredClone(t));
    return Promise.resolve({ tasks, nextPageToken: "", pageSize, totalSize: all.length });
  }
}
