/**
 * A PostgreSQL loom read by the commands that read a file (`spell loom thread/reward/view`,
 * `spell view`): a thread as a loom in memory, a reward appended, the whole loom written to a
 * JSONL file for the viewer's index.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { isoNow } from "../core/clock.js";
import { ConfigError } from "../core/errors.js";
import { Loom } from "./loom.js";
import type { StoredRecord } from "./loom-store.js";
import { postgresRecords } from "./postgres-records.js";
import { postgresLoomStore } from "./storage-postgres.js";
import { LOOM_FORMAT_VERSION, type LoomRecord } from "./turn.js";

/**
 * What `trajectory` reads of the thread ending at `turnId` (thread-export.ts): its turns (one
 * recursive query), their cantrips' identities and their rewards with reasons, in a loom in
 * memory. Rejects with `loom_unknown_turn` for a turn not stored.
 */
export async function postgresThreadLoom(url: string, turnId: string): Promise<Loom> {
  const store = postgresLoomStore(url);
  try {
    const turns = await store.readThread(turnId);
    const records: LoomRecord[] = [];
    for (const cantripId of new Set(turns.map((t) => t.cantrip_id))) {
      const node = await store.identity(cantripId);
      if (node) records.push({ ...node, type: "identity" });
    }
    for (const turn of turns) records.push({ ...turn, type: "turn" });
    records.push(...(await store.rewardRecords(turns.map((t) => t.id))));
    const loom = new Loom();
    loom.absorb(records);
    return loom;
  } finally {
    await store.close();
  }
}

/**
 * A reward appended to a turn of the PostgreSQL loom, as `Loom.annotateReward` appends one to a
 * file: refused (`bad_reward`, `loom_unknown_turn`) before anything is written.
 */
export async function rewardPostgresTurn(
  url: string,
  turnId: string,
  reward: number,
  reason?: string,
): Promise<void> {
  if (!Number.isFinite(reward))
    throw new ConfigError("bad_reward", "reward must be a finite number");
  const store = postgresLoomStore(url);
  try {
    if (!(await store.hasTurn(turnId)))
      throw new ConfigError("loom_unknown_turn", `no turn ${turnId} in the loom`);
    const record: StoredRecord = { type: "reward", turn_id: turnId, reward, timestamp: isoNow() };
    if (reason !== undefined) record.reason = reason;
    await store.append(record);
  } finally {
    await store.close();
  }
}

/** About how much of the snapshot is held before it is written. */
const WRITE_CHARS = 1 << 20;

/**
 * The whole PostgreSQL loom written to `path` as a loom file (a header, then every record in
 * append order), readable only by its owner: what the viewer indexes. Read a page of records at
 * a time and written as it comes (issue 40: memory bounded by a page, not by the loom). Not
 * redacted here (the records were redacted when stored; the viewer redacts what it shows).
 */
export async function snapshotPostgresLoom(url: string, path: string): Promise<void> {
  const fd = openSync(path, "wx", 0o600);
  try {
    const header = { type: "loom", version: LOOM_FORMAT_VERSION, created: isoNow() };
    let text = `${JSON.stringify(header)}\n`;
    for await (const record of postgresRecords(url)) {
      text += `${JSON.stringify(record)}\n`;
      if (text.length >= WRITE_CHARS) {
        writeSync(fd, text);
        text = "";
      }
    }
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
