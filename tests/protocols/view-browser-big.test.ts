// `spell view` in headless Chromium on a loom big enough to be read in the background (issue
// 40): the page opens on the tree before the file is read, fills in without a reload as the
// rest is read (its last turn then drawn at the bottom), and a turn appended afterwards appears
// too (live growth as before).
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { noChromium } from "../support/browser.js";
import { needs } from "../support/needs.js";
import { startViewer, type Viewer } from "../support/view.js";

const ARGS = [
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const TURNS = 20_000;

function turns(from: number, to: number): string {
  const out: string[] = [];
  if (from === 1)
    out.push(JSON.stringify({ type: "loom", version: 3, created: new Date().toISOString() }));
  for (let i = from; i <= to; i++)
    out.push(
      JSON.stringify({
        type: "turn",
        id: `t${i}`,
        parent_id: i === 1 ? null : `t${i - 1}`,
        cantrip_id: "c",
        entity_id: "ent_long",
        role: "turn",
        sequence: i,
        utterance: `step ${i}: reading the next file and noting what it says`,
        observation: `read: contents of file ${i}`,
        gate_calls: [{ gate_name: "read", arguments: `{"path":"f${i}"}`, result: "x" }],
        metadata: {
          tokens_prompt: 100 + i,
          tokens_completion: 7,
          tokens_cached: 0,
          duration_ms: 3,
          timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString(),
          ...(i === 1 ? { intent: "the long thread" } : {}),
        },
        reward: null,
        terminated: false,
        truncated: false,
        reason: null,
      }),
    );
  return `${out.join("\n")}\n`;
}

/** Scrolls the tree to its bottom until the row of `id` is drawn (the list grows meanwhile). */
async function bottomRow(page: Page, id: string): Promise<void> {
  await page.waitForFunction(
    (turn) => {
      const list = document.querySelector(".virtual");
      if (list) list.scrollTop = list.scrollHeight;
      return document.querySelector(`[data-turn-id="${turn}"]`) !== null;
    },
    id,
    { timeout: 90_000, polling: 100 },
  );
}

const dir = mkdtempSync(join(tmpdir(), "view-big-"));
const loom = join(dir, "big.jsonl");
let browser: Browser;
let viewer: Viewer;

needs(noChromium).describe("spell view in Chromium on a loom read in the background", () => {
  beforeAll(async () => {
    writeFileSync(loom, turns(1, TURNS));
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: process.env["SPELLBOOK_CHROMIUM"] || "/usr/bin/chromium",
      args: ARGS,
      chromiumSandbox: !ARGS.includes("--no-sandbox"),
      headless: true,
      timeout: 60_000,
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await viewer?.app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens on the tree, fills in to the last turn without a reload, then grows", async () => {
    // Several megabytes: more than a look reads before it answers.
    expect(statSync(loom).size).toBeGreaterThan(4 << 20);
    viewer = await startViewer(loom);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${viewer.base}/#/l/0/e/ent_long`);
    await page.locator('[data-turn-id="t1"]').waitFor({ timeout: 60_000 });
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await bottomRow(page, `t${TURNS}`);
    const stat = (await (await fetch(`${viewer.base}/api/l/0/stat`)).json()) as {
      turns: number;
      reading: boolean;
    };
    expect(stat).toMatchObject({ turns: TURNS, reading: false });
    appendFileSync(loom, turns(TURNS + 1, TURNS + 1));
    await bottomRow(page, `t${TURNS + 1}`);
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(
      true,
    );
    await page.close();
  });

  it('says "reading the loom…" while the server\'s stat says reading, and no more once read', async () => {
    viewer ??= await startViewer(loom);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // The stat as the server words it while a loom is read in the background, then once read.
    let reading = true;
    await page.route("**/api/l/0/stat", (route) =>
      route.fulfill({
        contentType: "application/json",
        body: JSON.stringify({ version: 1, turns: 10, entities: 1, problem: null, reading }),
      }),
    );
    await page.goto(`${viewer.base}/#/l/0`);
    const note = page.locator("[data-reading]");
    await note.waitFor();
    expect(await note.textContent()).toBe("reading the loom…");
    reading = false;
    await note.waitFor({ state: "detached" });
    // Not on the list of sources (no loom is shown there).
    reading = true;
    await page.goto(`${viewer.base}/#/`);
    await page.locator("main a").first().waitFor();
    expect(await page.locator("[data-reading]").count()).toBe(0);
    await page.close();
  });
});
