/**
 * Making a loom's state file (entity-state.ts): created with its header, readable by its owner
 * only; rebuilt from the loom when it is damaged, or when only the earlier format
 * (`name.state.json`, one JSON document) is there. A rebuild lists every entity with turns in
 * the loom (its cantrip, medium, last turn and sends; the spell file is not in the loom) and
 * keeps the protocol sessions that could still be read; it is written aside and renamed into
 * place, and a warning on stderr says what happened.
 */
import { existsSync, linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { headerLine, type SessionEntry } from "./entity-state-lines.js";
import { readRecords } from "../jsonl/index.js";

let made = 0;
const tempOf = (path: string) => `${path}.${process.pid}.${++made}.new`;

/** Creates the state file unless it exists: never two headers, never none. */
export function createStateFile(path: string, loomPath: string): void {
  if (existsSync(path)) return;
  const earlier = path.replace(/\.jsonl$/, ".json");
  if (earlier !== path && existsSync(earlier)) {
    rebuildState(path, loomPath, "the earlier format (state.json)", earlierSessions(earlier));
    return;
  }
  const temp = tempOf(path);
  writeFileSync(temp, headerLine(), { mode: 0o600 });
  try {
    linkSync(temp, path); // atomic: fails when another process created the file first
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    unlinkSync(temp);
  }
}

interface Seen {
  cantrip: string;
  created: string;
  last: string;
  sends: number;
}

/** Writes the state file anew from the loom (see the module comment); says so on stderr. */
export function rebuildState(
  path: string,
  loomPath: string,
  why: string,
  sessions: Map<string, SessionEntry>,
): void {
  const { media, seen, loomProblem } = entitiesOf(loomPath);
  const lines = [headerLine()];
  for (const [id, e] of seen) {
    const line = {
      type: "entity",
      id,
      cantrip: e.cantrip,
      medium: media.get(e.cantrip) ?? "unknown",
      spell: null,
      last_turn_id: e.last,
      sends: e.sends,
      at: e.created,
    };
    lines.push(`${JSON.stringify(line)}\n`);
  }
  for (const [id, s] of sessions) {
    const line = {
      type: "session",
      id,
      protocol: s.protocol,
      entity_id: s.entity_id,
      at: s.created,
    };
    lines.push(`${JSON.stringify(line)}\n`);
  }
  const temp = tempOf(path);
  writeFileSync(temp, lines.join(""), { mode: 0o600 });
  renameSync(temp, path);
  process.emitWarning(
    `${path}: ${why}: rebuilt from the loom ${loomPath}${loomProblem} — ${seen.size} entities, ${sessions.size} protocol sessions kept`,
    { code: "SPELLBOOK_LOOM_STATE" },
  );
}

/** Every entity with turns in the loom, and the medium of each cantrip. */
function entitiesOf(loomPath: string) {
  const media = new Map<string, string>();
  const seen = new Map<string, Seen>();
  let loomProblem = "";
  try {
    if (existsSync(loomPath))
      readRecords(loomPath, (record) => {
        if (record.type === "identity") media.set(record.cantrip_id, record.medium);
        if (record.type !== "turn") return;
        const at = record.metadata.timestamp;
        const entry = seen.get(record.entity_id);
        const send = record.metadata["intent"] !== undefined ? 1 : 0;
        if (!entry)
          seen.set(record.entity_id, {
            cantrip: record.cantrip_id,
            created: at,
            last: record.id,
            sends: send,
          });
        else {
          entry.last = record.id;
          entry.sends += send;
        }
      });
  } catch (err) {
    loomProblem = ` (the loom could not be read whole: ${(err as Error).message})`;
  }
  return { media, seen, loomProblem };
}

/** The sessions of a state file of the earlier format, when it can be read; else none. */
function earlierSessions(path: string): Map<string, SessionEntry> {
  const out = new Map<string, SessionEntry>();
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as { sessions?: unknown };
    const sessions = data.sessions;
    if (sessions && typeof sessions === "object" && !Array.isArray(sessions))
      for (const [id, s] of Object.entries(sessions as Record<string, Partial<SessionEntry>>))
        if (typeof s?.protocol === "string" && typeof s.entity_id === "string")
          out.set(id, {
            protocol: s.protocol,
            entity_id: s.entity_id,
            created: String(s.created ?? ""),
          });
  } catch {
    // unreadable: no sessions to keep
  }
  return out;
}
