/** Every string a test's own Redis holds: keys, hash fields and values, list, set and stream entries. */
import { Redis } from "ioredis";

export async function redisText(url: string): Promise<string> {
  const client = new Redis(url);
  try {
    const parts: string[] = [];
    for (const key of await client.keys("*")) {
      parts.push(key);
      const type = await client.type(key);
      if (type === "hash") parts.push(JSON.stringify(await client.hgetall(key)));
      else if (type === "string") parts.push((await client.get(key)) ?? "");
      else if (type === "list") parts.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === "set") parts.push(JSON.stringify(await client.smembers(key)));
      else if (type === "zset") parts.push(JSON.stringify(await client.zrange(key, 0, -1)));
      else if (type === "stream") parts.push(JSON.stringify(await client.xrange(key, "-", "+")));
    }
    return parts.join("\n");
  } finally {
    client.disconnect();
  }
}
