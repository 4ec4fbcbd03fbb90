/**
 * Provider pauses shared by every worker of one Redis: a 429 with Retry-After met by any worker
 * sets `spellbook:pause:<provider>` (its value the pause's end, epoch ms; expiring with it), and
 * every worker's next query to that provider waits until then (eval/scheduler.ts ProviderGate).
 * The longest pause wins: a shorter one never shortens a longer one already set.
 * Steady rates (`spell worker --rate`) are slots of a window kept on the same Redis (rates.ts).
 */
import { randomUUID } from "node:crypto";
import type { Scheduler, SharedPauses } from "../eval/scheduler.js";
import { connectionOf } from "./connection.js";
import { IN_FLIGHT_MS, RATE_KEY, SLOT_DONE, TAKE_SLOT, type Rate } from "./rates.js";

const KEY = (provider: string) => `spellbook:pause:${provider}`;

// Sets the key only when the new end is later than the one kept: one atomic script.
const SET_LATER = `local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;

export interface Pauses extends SharedPauses {
  close(): Promise<void>;
}

export async function sharedPauses(
  url: string,
  scheduler: Scheduler,
  rates: Readonly<Record<string, Rate>> = {},
): Promise<Pauses> {
  const { Redis } = await import("ioredis");
  const redis = new Redis({ ...connectionOf(url), lazyConnect: true, maxRetriesPerRequest: 3 });
  redis.on("error", () => {}); // reconnects on its own; a query meanwhile waits on its own pause
  await redis.connect();
  let taken = 0;
  const alone = new Map<string, number>(); // per provider: when this worker may query next
  const pauses: Pauses = {
    pause(provider, ms) {
      const end = Date.now() + ms;
      redis.eval(SET_LATER, 1, KEY(provider), String(end), String(ms)).catch(() => {});
    },
    async until(provider) {
      try {
        return Number((await redis.get(KEY(provider))) ?? 0);
      } catch {
        return 0; // Redis away: this worker keeps its own pause only
      }
    },
    async take(provider) {
      const rate = Object.hasOwn(rates, provider) ? rates[provider] : undefined;
      if (!rate) return { waitMs: 0 };
      const member = `${process.pid}-${++taken}-${randomUUID()}`; // unique across machines
      try {
        const waitMs = Number(
          await redis.eval(
            TAKE_SLOT,
            1,
            RATE_KEY(provider),
            rate.ms,
            rate.max,
            member,
            IN_FLIGHT_MS,
          ),
        );
        if (waitMs > 0) return { waitMs };
        const done = () =>
          void redis.eval(SLOT_DONE, 1, RATE_KEY(provider), member).catch(() => {});
        return { waitMs: 0, done };
      } catch {
        // Redis away: this worker alone keeps one query per 1/rate.
        const now = Date.now();
        const next = alone.get(provider) ?? 0;
        if (now < next) return { waitMs: next - now };
        alone.set(provider, now + Math.ceil(rate.ms / rate.max));
        return { waitMs: 0 };
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  scheduler.shared = pauses;
  return pauses;
}
