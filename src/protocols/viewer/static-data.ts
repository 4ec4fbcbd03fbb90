/**
 * `spell loom view FILE|URL --out page.html`: every answer the page could ask the server for
 * about one loom, computed once and redacted like the server's, keyed by the API path (the page
 * pages through the lists itself). The index is read whole before (a file's, or a store's).
 */
import { redactingReplacer } from "../../core/redact-stream.js";
import type { ViewerIndex } from "../../loom/viewer/index.js";
import { entityRows, threadRows } from "../../loom/viewer/index.js";
import { turnDetail } from "./routes.js";

export async function staticData(
  index: ViewerIndex,
  name: string,
  redact: (t: string) => string,
): Promise<string> {
  const answers: Record<string, unknown> = {
    "/api/sources": [{ id: "0", kind: "loom", name }],
    "/api/l/0/stat": {
      version: 1,
      turns: index.order.length,
      entities: index.entities.size,
      problem: index.problem,
    },
  };
  const entities = [...index.entities.values()];
  answers["/api/l/0/entities"] = { total: entities.length, offset: 0, rows: entities };
  for (const e of entities) {
    const rows = entityRows(index, e.id);
    answers[`/api/l/0/e/${e.id}/rows`] = { entity: e, total: rows.length, offset: 0, rows };
    const thread = threadRows(index, e.id);
    answers[`/api/l/0/e/${e.id}/thread`] = {
      entity: e,
      total: thread.length,
      offset: 0,
      rows: thread,
    };
  }
  const replacer = redactingReplacer(redact);
  const turns: string[] = [];
  for (const id of index.order) {
    const key = `/api/l/0/t/${id}`;
    turns.push(member(key, turnDetail(index, id, await index.readTurn(id)), replacer));
  }
  const head = JSON.stringify(answers, replacer);
  return turns.length === 0 ? head : `${head.slice(0, -1)},${turns.join(",")}}`;
}

/**
 * `"key":value` as JSON, redacted. A turn that cannot be written (a record nested thousands
 * deep, which another writer of a database may store) is its error instead, as the server
 * answers it: the page of every other turn is still written.
 */
function member(
  key: string,
  value: unknown,
  replacer: (key: string, value: unknown) => unknown,
): string {
  let json: string;
  try {
    json = JSON.stringify({ [key]: value }, replacer);
  } catch (err) {
    const message = `this turn cannot be shown: ${err instanceof Error ? err.message : String(err)}`;
    json = JSON.stringify({ [key]: { error: { code: "view_failed", message } } }, replacer);
  }
  return json.slice(1, -1);
}
