// The test Redis: a real redis-server on loopback that answers PING, restarts on the same port
// (answering again) and is gone after stop.
import { expect, it } from "vitest";
import { ping, REDIS_MISSING, RedisServer } from "../support/redis.js";
import { needs } from "../support/needs.js";

needs(REDIS_MISSING).describe("tests/support/redis.ts", { timeout: 60_000 }, () => {
  it("starts a real redis-server, restarts it on the same port, and stops it", async () => {
    const r = await RedisServer.start();
    try {
      expect(await ping(r.port)).toBe(true);
      const port = r.port;
      await r.restart();
      expect(r.port).toBe(port);
      expect(await ping(r.port)).toBe(true);
    } finally {
      await r.close();
    }
    expect(await ping(r.port)).toBe(false);
  });
});
