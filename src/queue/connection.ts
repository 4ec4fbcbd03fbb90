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

/** The URL as messages and logs show it: without a user or password (up to the last `@`). */
export const shownQueue = (url: string): string =>
  url.replace(/^([a-z][a-z0-9+.-]*:\/\/).*@/i, "$1");

export function connectionOf(url: string): RedisConnection {
  const bad = () =>
    new ConfigError("queue_url", `--queue ${shownQueue(url)}: not a redis://host:port URL`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad();
  }
  if (u.protocol !== "redis:") throw bad();
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  return {
    host: u.hostname || "127.0.0.1",
    port: Number(u.port || 6379),
    ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}
