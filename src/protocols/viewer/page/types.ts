/// <reference lib="dom" />
/** What the API answers (src/loom/view-*.ts, src/protocols/viewer/routes.ts), as the page reads it. */
export type { ViewerEntity } from "../../../loom/viewer/index.js";
export type { TurnRow, FoldRow, ViewerRow } from "../../../loom/viewer/index.js";
export type { EvalRow } from "../evals.js";
