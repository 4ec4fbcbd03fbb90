/**
 * Steady per-provider rates shared by every worker of one Redis (`spell worker --rate
 * openai=10/s`): before each query to a provider with a rate, a worker takes a slot of a sliding
 * window kept in Redis (`spellbook:rate:<provider>`, a sorted set of the window's queries, timed
 * by the Redis server's own clock so machines' clocks do not matter). A full window answers how
 * long until its oldest query leaves it; the worker waits that long and asks again. One atomic
 * script: two workers never take the same last slot.
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

// KEYS[1] the provider's window; ARGV: window ms, max, a unique member. Returns 0 (taken) or the
// ms until the oldest query leaves the window.
export const TAKE_SLOT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)`;

export const RATE_KEY = (provider: string) => `spellbook:rate:${provider}`;
