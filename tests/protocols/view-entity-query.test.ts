// The entity list's search, filters and sort (src/protocols/viewer/entity-query.ts): by the server
// (`/api/l/ID/entities?q=…`) and as a saved page pages through its embedded list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ViewerEntity } from "../../src/loom/viewer/index.js";
import { queryEntities } from "../../src/protocols/viewer/entity-query.js";
import { startViewer, viewFolder, type Viewer } from "../support/view.js";

const entity = (id: string, o: Partial<ViewerEntity>): ViewerEntity => ({
  id,
  cantrip: "c",
  kind: "root",
  parentTurn: null,
  parentEntity: null,
  intent: "",
  first: "",
  last: "",
  turns: 1,
  tokens: 0,
  cost: null,
  reward: null,
  end: null,
  err: false,
  started: "",
  updated: "",
  ms: 0,
  ...o,
});

const ALL = [
  entity("e1", { intent: "Count the owls", end: "done", reward: 1, cost: 0.02, turns: 3 }),
  entity("e2", { intent: "Count the bats", end: "truncated: max_turns", cost: 0.5, turns: 9 }),
  entity("e3", { intent: "Name the OWLS", end: null, err: true, reward: 0.2, turns: 1 }),
];
const ids = (q: Record<string, string>) => queryEntities(ALL, q).map((e) => e.id);

describe("the entity list's query", () => {
  it("searches every word in the intent or the id, case ignored, as plain text", () => {
    expect(ids({ q: "owls" })).toEqual(["e1", "e3"]);
    expect(ids({ q: "count owls" })).toEqual(["e1"]);
    expect(ids({ q: "e2" })).toEqual(["e2"]);
    expect(ids({ q: ".*" })).toEqual([]);
  });

  it("filters by status, the least reward and the most cost", () => {
    expect(ids({ status: "open" })).toEqual(["e3"]);
    expect(ids({ status: "ended" })).toEqual(["e1"]);
    expect(ids({ status: "truncated" })).toEqual(["e2"]);
    expect(ids({ status: "error" })).toEqual(["e3"]);
    expect(ids({ minReward: "0.5" })).toEqual(["e1"]);
    // An entity of unknown cost is not excluded by a cost limit.
    expect(ids({ maxCost: "0.1" })).toEqual(["e1", "e3"]);
    expect(ids({ maxCost: "lots" })).toEqual(["e1", "e2", "e3"]);
  });

  it("sorts by a column either way; an unknown column keeps the file's order", () => {
    expect(ids({ sort: "turns" })).toEqual(["e3", "e1", "e2"]);
    expect(ids({ sort: "turns", dir: "desc" })).toEqual(["e2", "e1", "e3"]);
    expect(ids({ sort: "reward", dir: "desc" })).toEqual(["e1", "e3", "e2"]);
    expect(ids({ sort: "nope" })).toEqual(["e1", "e2", "e3"]);
  });
});

describe("the entity list's query, served", () => {
  let viewer: Viewer;
  beforeAll(async () => {
    viewer = await startViewer(viewFolder().loom);
  });
  afterAll(() => viewer?.app.close());
  const get = async (qs: string) => {
    const res = await fetch(`${viewer.base}/api/l/0/entities?${qs}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { total: number; rows: ViewerEntity[] };
  };

  it("answers the filtered, sorted list and its total, paged", async () => {
    const all = await get("sort=intent&dir=desc");
    expect(all.rows.map((e) => e.id)).toEqual(["ent_root", "ent_child", "ent_fork"]);
    const some = await get("q=count&status=ended&offset=0&limit=1");
    expect(some.total).toBe(2);
    expect(some.rows.map((e) => e.id)).toEqual(["ent_root"]);
    // A parameter given twice is not a string: ignored, not a failure.
    expect((await get("q=a&q=b")).total).toBe(3);
  });
});
