/**
 * `browser: { allow, max_chars, timeout_ms }` as a spell writes it → four gates on one headless
 * Chromium: browser_goto, browser_click, browser_type, browser_text. Each entity has a page of
 * its own; a page reaches only the hosts the allow list names (the fetch gate's rules).
 */
import { ConfigError } from "../../core/errors.js";
import type { Gate, GateContext } from "../gate.js";
import { firstLine } from "./browser-engine.js";
import { BrowserPages, type BrowserSettings, type LivePage } from "./browser-pages.js";
import { DENIED_HEADER } from "./browser-proxy.js";
import { checkAllowed, parseAllowEntryOf, parseTarget, shownUrl } from "./fetch-allow.js";
import { positiveSetting } from "./positive-setting.js";

export const BROWSER_DEPENDENCIES = ["allow", "max_chars", "timeout_ms"] as const;
export const BROWSER_GATES = ["browser_goto", "browser_click", "browser_type", "browser_text"];
const DEFAULT_MAX_CHARS = 20_000;
const DEFAULT_TIMEOUT_MS = 15_000;

const bad = (message: string): ConfigError =>
  new ConfigError("bad_dependency", `browser: ${message}`);

const positive = (deps: Readonly<Record<string, unknown>>, key: string, otherwise: number) =>
  positiveSetting(deps, key, bad) ?? otherwise;

/** The declaration, checked: every mistake is an error of the spell at the gate's line. */
export function browserSettingsOf(deps: Readonly<Record<string, unknown>>): BrowserSettings {
  const allow = deps["allow"] ?? [];
  if (!Array.isArray(allow)) throw bad("allow is a list of hosts, e.g. [localhost:8080]");
  return {
    allow: allow.map((entry) => parseAllowEntryOf(entry, "browser")),
    maxChars: positive(deps, "max_chars", DEFAULT_MAX_CHARS),
    timeoutMs: positive(deps, "timeout_ms", DEFAULT_TIMEOUT_MS),
  };
}

type Action = (live: LivePage, args: Record<string, unknown>) => Promise<string>;

/** The four gates, sharing one set of pages (one per entity). */
export function browserGates(settings: BrowserSettings): Gate[] {
  const pages = new BrowserPages(settings);
  const hosts = settings.allow.map((e) => e.text).join(", ") || "none allowed";
  const str = (description: string) => ({ type: "string", description });
  const gate = (
    name: string,
    description: string,
    properties: Record<string, Record<string, unknown>>,
    required: string[],
    action: Action,
  ): Gate => ({
    name,
    description,
    parameters: { type: "object", properties, required },
    hold: (entityId) => pages.hold(entityId),
    execute: (args, ctx) => run(pages, name, args, ctx, action),
  });
  const selector = str("A CSS selector (or text=…, role=…), e.g. button#send");
  return [
    gate(
      "browser_goto",
      `Opens a URL in your browser page (hosts: ${hosts}). Returns the title, URL and visible text.`,
      { url: str("Absolute http(s) URL") },
      ["url"],
      (live, args) => goto(live, args["url"], settings),
    ),
    gate(
      "browser_click",
      "Clicks the first element matching a selector; returns the page after the click.",
      { selector },
      ["selector"],
      async (live, args) => {
        await live.page.click(String(args["selector"]));
        await live.page.waitForLoadState("load");
        return snapshot(live, settings.maxChars);
      },
    ),
    gate(
      "browser_type",
      "Fills a text field (input, textarea) matching a selector with text, replacing what it held.",
      { selector, text: str("The text to type") },
      ["selector", "text"],
      async (live, args) => {
        const text = String(args["text"]);
        await live.page.fill(String(args["selector"]), text);
        return `typed ${text.length} characters into ${String(args["selector"])}`;
      },
    ),
    gate(
      "browser_text",
      "The visible text of the element matching a selector, or of the whole page without one.",
      { selector: str("A CSS selector; default the whole page") },
      [],
      async (live, args) => {
        const sel = typeof args["selector"] === "string" ? args["selector"] : "body";
        return trim(await live.page.innerText(sel), settings.maxChars);
      },
    ),
  ];
}

async function goto(live: LivePage, raw: unknown, settings: BrowserSettings): Promise<string> {
  const url = parseTarget(raw, undefined, "browser");
  checkAllowed(settings.allow, url, "browser");
  const response = await live.page.goto(url.href, { waitUntil: "load" });
  const denied = response?.headers()[DENIED_HEADER];
  if (denied !== undefined)
    throw new Error(`browser: a redirect from ${url.host} was refused: ${decoded(denied)}`);
  return snapshot(live, settings.maxChars);
}

const decoded = (header: string): string => {
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
};

async function run(
  pages: BrowserPages,
  name: string,
  args: Record<string, unknown>,
  ctx: GateContext,
  action: Action,
): Promise<string> {
  let live = await pages.page(ctx.entityId);
  if (live.page.isClosed() || !live.context.browser()?.isConnected()) {
    await pages.close(ctx.entityId);
    live = await pages.page(ctx.entityId);
  }
  live.blocked.clear();
  try {
    const result = await action(live, args);
    return result + blockedNote(live);
  } catch (err) {
    throw new Error(explain(name, err, live, pages.settings.timeoutMs));
  }
}

/** A driver error as the entity reads it: one line, what happened and what to do. */
function explain(name: string, err: unknown, live: LivePage, timeoutMs: number): string {
  const line = firstLine(err);
  if (line.startsWith("browser:")) return line;
  if (!live.context.browser()?.isConnected() || /has been closed|crashed/i.test(line))
    return `${name}: the browser page closed or crashed (${line}); the next call opens a new one`;
  if ((err as Error).name === "TimeoutError")
    return `${name}: nothing happened within ${timeoutMs} ms (${line})`;
  return `${name}: ${line}${blockedNote(live)}`;
}

const blockedNote = (live: LivePage): string =>
  live.blocked.size
    ? `\n\n[blocked requests to hosts not allowed: ${[...live.blocked].join(", ")}]`
    : "";

async function snapshot(live: LivePage, maxChars: number): Promise<string> {
  const { page } = live;
  const text = await page.innerText("body").catch(() => "");
  return `Title: ${await page.title()}\nURL: ${shownUrl(new URL(page.url()))}\n\n${trim(text, maxChars)}`;
}

function trim(text: string, maxChars: number): string {
  const clean = text.replace(/\n{3,}/g, "\n\n").trim();
  return clean.length <= maxChars
    ? clean
    : `${clean.slice(0, maxChars)}\n[cut at ${maxChars} of ${clean.length} characters]`;
}
