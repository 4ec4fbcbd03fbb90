/**
 * The pages of one `browser:` declaration: one browser context (and page) per entity, made on
 * the entity's first call and closed when the entity lets go (disposed). Every request of the
 * context — navigation, sub-resources, XHR, workers — is routed here and aborted when its host
 * is not allowed; what routing does not see (a redirect's next hop) meets the proxy.
 */
import type { BrowserContext, Page } from "playwright-core";
import { acquireBrowser, releaseBrowser } from "./browser-engine.js";
import { refusal, startAllowProxy, type AllowProxy } from "./browser-proxy.js";
import type { AllowEntry } from "./fetch-allow.js";

export interface BrowserSettings {
  allow: readonly AllowEntry[];
  /** Characters of text a result shows at most. */
  maxChars: number;
  /** Each navigation, wait for a selector, and action. */
  timeoutMs: number;
}

export interface LivePage {
  context: BrowserContext;
  page: Page;
  proxy: AllowProxy;
  /** Hosts whose requests were aborted since the last result said so. */
  blocked: Set<string>;
  /** Closes the proxy and gives the browser back, once (on close, or when the page died). */
  release: () => void;
}

/** URLs that never reach the network pass (data:, blob:, about:); http(s) only as allowed. */
function deniedBy(allow: readonly AllowEntry[], raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "browser: not a URL";
  }
  if (["data:", "blob:", "about:"].includes(url.protocol)) return null;
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `browser: scheme ${url.protocol} is not allowed`;
  return refusal(allow, url);
}

export class BrowserPages {
  private readonly pages = new Map<string, Promise<LivePage>>();
  private readonly holders = new Map<string, number>();

  constructor(readonly settings: BrowserSettings) {}

  /** The entity's page, opened on its first call. */
  page(entityId: string): Promise<LivePage> {
    let live = this.pages.get(entityId);
    if (!live) {
      live = this.open(entityId);
      this.pages.set(entityId, live);
      live.catch(() => this.pages.delete(entityId));
    }
    return live;
  }

  /** An entity's hold: its page closes when the last of its gates lets go. */
  hold(entityId: string): () => void {
    this.holders.set(entityId, (this.holders.get(entityId) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.holders.get(entityId) ?? 1) - 1;
      if (left > 0) return void this.holders.set(entityId, left);
      this.holders.delete(entityId);
      void this.close(entityId);
    };
  }

  /** Closes an entity's page and its proxy. */
  async close(entityId: string): Promise<void> {
    const live = this.pages.get(entityId);
    this.pages.delete(entityId);
    if (!live) return;
    const opened = await live.catch(() => undefined);
    if (!opened) return; // a page that failed to open gave its use back
    await opened.context.close().catch(() => undefined);
    opened.release();
  }

  /** How many entities have a page open (tests). */
  get open_count(): number {
    return this.pages.size;
  }

  private async open(entityId: string): Promise<LivePage> {
    const { allow, timeoutMs } = this.settings;
    let proxy: AllowProxy | undefined;
    try {
      const browser = await acquireBrowser(timeoutMs);
      proxy = await startAllowProxy(allow);
      const context = await browser.newContext({
        // Every request meets the proxy, loopback too (the driver adds <-loopback> itself).
        proxy: { server: proxy.server },
        serviceWorkers: "block",
        acceptDownloads: false,
      });
      context.setDefaultTimeout(timeoutMs);
      context.setDefaultNavigationTimeout(timeoutMs);
      const blocked = new Set<string>();
      await context.route("**/*", (route) => {
        const url = route.request().url();
        if (deniedBy(allow, url) === null) return route.continue();
        blocked.add(hostOf(url));
        return route.abort("blockedbyclient");
      });
      const page = await context.newPage();
      const live = this.pages.get(entityId);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        proxy?.close();
        void releaseBrowser();
      };
      context.on("close", () => {
        release();
        if (this.pages.get(entityId) === live) this.pages.delete(entityId);
      });
      return { context, page, proxy, blocked, release };
    } catch (err) {
      proxy?.close();
      await releaseBrowser();
      throw err;
    }
  }
}

const hostOf = (raw: string): string => {
  try {
    return new URL(raw).host;
  } catch {
    return raw.slice(0, 60);
  }
};
