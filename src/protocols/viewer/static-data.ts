/**
 * `spell loom view FILE|URL --out page.html`: every answer the page could ask the server for
 * about one loom, computed once and redacted like the server's, keyed by the API path (the page
 * pages through the lists itself). The index is read whole before (a file's, or a store's).
 */
import { redactingReplacer } from "../../core/redact-stream.js";
import type { ViewIndex } from "../../loom/viewer/index.js";
import { entityRows, threadRows } from "../../loom/viewer/index.js";
import { turnDetail } from "./routes.js";

export async function staticData(
  index: ViewIndex,
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
  for (const id of index.order)
    answers[`/api/l/0/t/${id}`] = turnDetail(index, id, await index.readTurn(id));
  return JSON.stringify(answers, redactingReplacer(redact));
}
