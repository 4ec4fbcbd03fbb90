/**
 * Provider pauses shared by every worker of one Redis: a 429 with Retry-After met by any worker
 * sets `spellbook:pause:<provider>` (its value the pause's end, epoch ms; expiring with it), and
 * every worker's next query to that provider waits until then (eval/scheduler.ts ProviderGate).
 * The longest pause wins: a shorter one never shortens a longer one already set.
 *
 * A pause set is also published (`spellbook:pauses`), and each worker keeps what it heard: a
 * provider's key is read once while the worker's subscription stands, not before every query
 * (issue 40: three Redis round trips a 3-turn cast saved). A subscription that drops (Redis away
 * or restarted) may have missed a pause: every provider's key is read again, once subscribed anew.
 * Steady rates (`spell worker --rate`) are slots of a window kept on the same Redis (rates.ts).
 */
import { randomUUID } from "node:crypto";
import type { Scheduler, SharedPauses } from "../eval/scheduler.js";
import type { Redis } from "ioredis";
import { SystemError, errorMessage } from "../core/errors.js";
import { connectionOf, shownQueue } from "./connection.js";
import { IN_FLIGHT_MS, RATE_KEY, SLOT_DONE, TAKE_SLOT, type Rate } from "./rates.js";

const KEY = (provider: string) => `spellbook:pause:${provider}`;
/** Where a pause set is told: "<provider> <end, epoch ms>". */
const CHANNEL = "spellbook:pauses";

// Sets the key only when the new end is later than the one kept, and tells every worker: one
// atomic script.
const SET_LATER = `local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('PUBLISH', ARGV[3], ARGV[4] .. ' ' .. ARGV[1])
end
return 1`;

export interface Pauses extends SharedPauses {
  close(): Promise<void>;
}

export async function sharedPauses(
  url: string,
  scheduler: Scheduler,
  rates: Readonly<Record<string, Rate>> = {},
  signal?: AbortSignal,
): Promise<Pauses> {
  const { Redis } = await import("ioredis");
  const redis = new Redis({ ...connectionOf(url), lazyConnect: true, maxRetriesPerRequest: 3 });
  let why: Error | undefined;
  // Reconnects on its own once connected; a query meanwhile waits on its own pause.
  redis.on("error", (err: Error) => (why = err));
  // Its socket closed at once: a server that never answers would hold an ended one for seconds.
  const stop = () => {
    redis.disconnect();
    redis.stream?.destroy();
  };
  signal?.addEventListener("abort", stop, { once: true });
  try {
    await redis.connect();
  } catch (err) {
    // Not left reconnecting: a worker that could not start ends (or stops when asked).
    redis.disconnect();
    if (signal?.aborted) throw signal.reason;
    throw new SystemError(
      "queue_unreachable",
      `cannot reach the queue's Redis at ${shownQueue(url)}: ${errorMessage(why ?? err)}`,
    );
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  const heard = await hearPauses(redis);
  const pauses: Pauses = {
    pause(provider, ms) {
      const end = Date.now() + ms;
      redis
        .eval(SET_LATER, 1, KEY(provider), String(end), String(ms), CHANNEL, provider)
        .catch(() => {});
    },
    async until(provider) {
      const known = heard.until(provider);
      if (known !== undefined) return known;
      const listening = heard.since();
      try {
        const end = Number((await redis.get(KEY(provider))) ?? 0);
        heard.read(provider, end, listening);
        return end;
      } catch {
        return 0; // Redis away: this worker keeps its own pause only
      }
    },
    take: slotTaker(redis, rates),
    async close() {
      await heard.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  scheduler.shared = pauses;
  return pauses;
}

/** `take`: a slot of the provider's steady rate kept on the Redis (rates.ts), if it has one. */
function slotTaker(redis: Redis, rates: Readonly<Record<string, Rate>>) {
  let taken = 0;
  const alone = new Map<string, number>(); // per provider: when this worker may query next
  return async (provider: string): Promise<{ waitMs: number; done?: () => void }> => {
    const rate = Object.hasOwn(rates, provider) ? rates[provider] : undefined;
    if (!rate) return { waitMs: 0 };
    const member = `${process.pid}-${++taken}-${randomUUID()}`; // unique across machines
    try {
      const waitMs = Number(
        await redis.eval(TAKE_SLOT, 1, RATE_KEY(provider), rate.ms, rate.max, member, IN_FLIGHT_MS),
      );
      if (waitMs > 0) return { waitMs };
      const done = () => void redis.eval(SLOT_DONE, 1, RATE_KEY(provider), member).catch(() => {});
      return { waitMs: 0, done };
    } catch {
      // Redis away: this worker alone keeps one query per 1/rate.
      const now = Date.now();
      const next = alone.get(provider) ?? 0;
      if (now < next) return { waitMs: next - now };
      alone.set(provider, now + Math.ceil(rate.ms / rate.max));
      return { waitMs: 0 };
    }
  };
}

/**
 * The pauses published on CHANNEL, heard on a connection of their own. `until(provider)`: the
 * end last heard or read for it, or undefined when its key must be read (never read, or read
 * before the current subscription stood). `since()` before a read, `read(…)` after it: a read
 * counts only if the same subscription stood all along (nothing published meanwhile was missed).
 */
async function hearPauses(redis: Redis) {
  const sub = redis.duplicate();
  sub.on("error", () => {}); // reconnects on its own; meanwhile every query reads the key
  const ends = new Map<string, number>();
  const read = new Set<string>(); // providers whose key was read under the current subscription
  let subscription = 0; // counts subscriptions; odd while one stands
  const subscribe = () => {
    read.clear();
    if (subscription % 2 === 1) subscription++; // the one before has dropped
    const asked = subscription;
    return sub.subscribe(CHANNEL).then(
      () => {
        if (subscription === asked) subscription++;
      },
      () => {},
    );
  };
  sub.on("message", (_channel: string, text: string) => {
    const [provider = "", end = "0"] = text.split(" ");
    ends.set(provider, Math.max(ends.get(provider) ?? 0, Number(end)));
  });
  sub.on("close", () => {
    read.clear();
    if (subscription % 2 === 1) subscription++;
  });
  sub.on("ready", () => void subscribe());
  await subscribe(); // the first "ready" may come before the listener: subscribe once here too
  return {
    until: (provider: string): number | undefined =>
      subscription % 2 === 1 && read.has(provider) ? (ends.get(provider) ?? 0) : undefined,
    since: (): number => subscription,
    read(provider: string, end: number, since: number): void {
      ends.set(provider, Math.max(ends.get(provider) ?? 0, end));
      if (since % 2 === 1 && since === subscription) read.add(provider);
    },
    close: () =>
      sub.quit().then(
        () => {},
        () => sub.disconnect(),
      ),
  };
}
