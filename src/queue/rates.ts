/**
 * Steady per-provider rates shared by every worker of one Redis (`spell worker --rate
 * openai=10/s`): before each query to a provider with a rate, a worker takes a slot of a sliding
 * window kept in Redis (`spellbook:rate:<provider>`, a sorted set of the window's queries, timed
 * by the Redis server's own clock so machines' clocks do not matter). The provider never sees
 * more than N queries in any window, whatever the delays between a slot and the query's arrival:
 * a query holds its slot from when it is taken until one window after its answer came back (its
 * arrival lies between the two), so a slow query spends its slot longer. A full window answers
 * how long until a slot may free (at most one window: a query in flight frees its slot only
 * when it ends); the worker waits that long and asks again. One atomic script: two workers never
 * take the same last slot. A worker that dies mid-query leaves its slot held for IN_FLIGHT_MS.
 *
 * BullMQ's own `limiter` counts jobs of the whole queue; a job here is a cast, which may query
 * its provider many times, so the rate is kept per query and per provider instead.
 */
import { ConfigError } from "../core/errors.js";

/** At most `max` queries in any `ms` window. */
export interface Rate {
  max: number;
  ms: number;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** `PROVIDER=N/s` (or `/m`, `/h`) → [provider, rate]. */
export function parseRate(text: string): [string, Rate] {
  const m = /^([a-z_][a-z0-9_-]*)=(\d+)\/(s|m|h)$/.exec(text.trim());
  const max = m ? Number(m[2]) : 0;
  if (!m || max < 1)
    throw new ConfigError(
      "worker_rate",
      `--rate ${text}: write PROVIDER=N/s (or /m, /h), N at least 1, e.g. --rate openai=10/s`,
    );
  return [m[1]!, { max, ms: UNITS[m[3]!]! }];
}

/** How long a query in flight holds its slot at most (a worker that died mid-query). */
export const IN_FLIGHT_MS = 600_000;

// KEYS[1] the provider's window; ARGV: window ms, max, a unique member, IN_FLIGHT_MS. Returns 0
// (taken: the member is held until SLOT_DONE, or IN_FLIGHT_MS) or the ms to wait before asking
// again. A member's score is when it leaves the window's count less one window; it leaves once
// more than a window has passed (a strict bound: a millisecond's rounding cannot let a 6th in).
export const TAKE_SLOT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%d', now - window))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  local hold = tonumber(ARGV[4])
  redis.call('ZADD', KEYS[1], now + hold, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < hold + window then redis.call('PEXPIRE', KEYS[1], hold + window) end
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, math.min(window, tonumber(oldest[2]) + window - now))`;

// KEYS[1] the provider's window; ARGV: the member. The query ended: it counts one more window
// from now (its arrival at the provider was before now), then leaves.
export const SLOT_DONE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
return 1`;

export const RATE_KEY = (provider: string) => `spellbook:rate:${provider}`;
