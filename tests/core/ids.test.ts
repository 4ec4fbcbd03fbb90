/**
 * Ids unique across machines without coordination (issue 27): UUIDv7 after the kind prefix,
 * checked with the `uuid` package's own parser, time-ordered and monotonic within a process.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { validate, version } from "uuid";
import { newEntityId, newId } from "../../src/core/ids.js";

const uuidOf = (id: string, prefix: string): string => {
  expect(id.startsWith(`${prefix}_`)).toBe(true);
  return id.slice(prefix.length + 1);
};

/** The 48-bit Unix-milliseconds field of a UUIDv7. */
const msecsOf = (uuid: string): number => parseInt(uuid.replace(/-/g, "").slice(0, 12), 16);

describe("newId", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is the kind prefix and a UUIDv7 carrying the time of creation", () => {
    const before = Date.now();
    const id = newId("turn");
    const after = Date.now();
    const uuid = uuidOf(id, "turn");
    expect(validate(uuid)).toBe(true);
    expect(version(uuid)).toBe(7);
    expect(msecsOf(uuid)).toBeGreaterThanOrEqual(before);
    expect(msecsOf(uuid)).toBeLessThanOrEqual(after);
    expect(uuidOf(newEntityId(), "ent")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
  });

  it("is unique and strictly increasing within a process, many to a millisecond", () => {
    const ids = Array.from({ length: 50_000 }, () => newId("t").slice(2));
    expect(new Set(ids).size).toBe(ids.length);
    const outOfOrder = ids.filter((id, i) => i > 0 && !(id > ids[i - 1]!));
    expect(outOfOrder).toEqual([]);
    // 50,000 ids in fewer milliseconds: some share one, and the counter orders them.
    const msecs = new Set(ids.map(msecsOf));
    expect(msecs.size).toBeLessThan(ids.length);
  });

  it("stays increasing when the clock goes back", () => {
    const first = uuidOf(newId("t"), "t");
    const now = vi.spyOn(Date, "now").mockReturnValue(msecsOf(first) - 60_000);
    const later = [uuidOf(newId("t"), "t"), uuidOf(newId("t"), "t")];
    expect(now).toHaveBeenCalled();
    expect(later[0]! > first).toBe(true);
    expect(later[1]! > later[0]!).toBe(true);
    for (const u of later) expect(version(u)).toBe(7);
  });

  it("carries 42 random bits after the counter in every id, not a host or process number", () => {
    const tails = Array.from({ length: 1000 }, () => newId("t").slice(-10));
    // The last 10 hex digits are random bits only: a counter or a fixed node part would keep
    // their first digit the same, random bits give each of the 16 about 60 times.
    expect(new Set(tails).size).toBe(tails.length);
    expect(new Set(tails.map((t) => t[0])).size).toBeGreaterThanOrEqual(12);
  });
});
