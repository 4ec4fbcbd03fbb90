/**
 * Provider pauses shared by every worker of one Redis: a 429 with Retry-After met by any worker
 * sets `spellbook:pause:<provider>` (its value the pause's end, epoch ms; expiring with it), and
 * every worker's next query to that provider waits until then (eval/scheduler.ts ProviderGate).
 * The longest pause wins: a shorter one never shortens a longer one already set.
 */
import type { Scheduler, SharedPauses } from "../eval/scheduler.js";
import { connectionOf } from "./connection.js";

const KEY = (provider: string) => `spellbook:pause:${provider}`;

// Sets the key only when the new end is later than the one kept: one atomic script.
const SET_LATER = `local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`;

export interface Pauses extends SharedPauses {
  close(): Promise<void>;
}

export async function sharedPauses(url: string, scheduler: Scheduler): Promise<Pauses> {
  const { Redis } = await import("ioredis");
  const redis = new Redis({ ...connectionOf(url), lazyConnect: true, maxRetriesPerRequest: 3 });
  redis.on("error", () => {}); // reconnects on its own; a query meanwhile waits on its own pause
  await redis.connect();
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
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  scheduler.shared = pauses;
  return pauses;
}
