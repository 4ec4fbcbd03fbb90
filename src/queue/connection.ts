/**
 * BullMQ, imported on first use (`spell --help` and every other command never load it), and the
 * connection options of a `redis://[user:password@]host:port[/db]` URL.
 */
import type * as BullMQModule from "bullmq";
import { ConfigError } from "../core/errors.js";

export type BullMQ = typeof BullMQModule;

export const loadBullMQ = (): Promise<BullMQ> => import("bullmq");

export interface RedisConnection {
  host: string;
  port: number;
  db?: number;
  username?: string;
  password?: string;
}

export function connectionOf(url: string): RedisConnection {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError("queue_url", `--queue ${url}: not a redis://host:port URL`);
  }
  if (u.protocol !== "redis:")
    throw new ConfigError("queue_url", `--queue ${url}: not a redis://host:port URL`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  return {
    host: u.hostname || "127.0.0.1",
    port: Number(u.port || 6379),
    ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}
