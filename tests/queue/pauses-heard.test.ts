// Issue 40: a worker hears the pauses other workers set (published as they are set) instead of
// reading the provider's key before every query — and a subscription that dropped may have
// missed one, so the key is read again then: a pause written while it was down still holds.
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { Scheduler } from "../../src/eval/scheduler.js";
import { sharedPauses, type Pauses } from "../../src/queue/pauses.js";
import { needs } from "../support/needs.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function workerPauses(url: string): Promise<Pauses> {
  const p = await sharedPauses(url, new Scheduler(2));
  open.push(() => p.close());
  return p;
}

needs(REDIS_MISSING).describe("shared pauses, heard", { timeout: 60_000 }, () => {
  it("a pause set by one worker holds the other's next query, after its key was read", async () => {
    const redis = await RedisServer.start();
    open.push(() => redis.stop());
    const [a, b] = [await workerPauses(redis.url), await workerPauses(redis.url)];
    expect(await b.until("openai")).toBe(0); // read once: nothing set
    const before = Date.now();
    a.pause("openai", 5_000);
    await expect.poll(() => b.until("openai")).toBeGreaterThanOrEqual(before + 5_000);
    expect(await b.until("anthropic")).toBe(0); // another provider: its own pause, none
    // The longest pause wins, heard as read.
    a.pause("openai", 1_000);
    expect(await a.until("openai")).toBeGreaterThanOrEqual(before + 5_000);
  });

  it("a subscription that dropped reads the key again: a pause set meanwhile is not missed", async () => {
    const redis = await RedisServer.start();
    open.push(() => redis.stop());
    const b = await workerPauses(redis.url);
    expect(await b.until("openai")).toBe(0);
    const admin = new Redis(redis.url);
    open.push(() => admin.quit());
    const subscribers = async () =>
      String(await admin.call("CLIENT", "LIST", "TYPE", "pubsub"))
        .split("\n")
        .filter(Boolean)
        .map((l) => /id=(\d+)/.exec(l)![1]);
    const [first] = await subscribers();
    await admin.call("CLIENT", "KILL", "TYPE", "pubsub");
    // Written as a worker that publishes nothing would (or while nobody listened).
    const end = Date.now() + 60_000;
    await admin.set("spellbook:pause:openai", String(end), "PX", 60_000);
    await expect.poll(subscribers).toEqual([expect.not.stringMatching(`^${first}$`)]);
    expect(await b.until("openai")).toBe(end);
  });
});
