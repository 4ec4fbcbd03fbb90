// `spell view` as pictures, in real headless Chromium (Debian's, driven by playwright-core): two
// real `spell eval` runs (two targets, three cases, three repeats, priced; the second run with
// an improved, a regressed and a newly errored case) and a loom of three casts. Each view's
// numbers are checked against what the run wrote (summary.json, results.jsonl); each chart has
// a label and its table; the compare view sorts the cases; the entity list searches, filters and
// sorts; a turn opens in place; a fork made from the page lands in the loom and shows as a
// branch. Nothing is fetched but the server's own answers. Screenshots go to
// tests/artifacts/view/ (git ignores it), and to docs/viewer/ when SPELLBOOK_DOCS_SHOTS=1.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { forkRunner } from "../../src/cli/view.js";
import type { GroupSummary } from "../../src/eval/summary.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { noChromium } from "../support/browser.js";
import { io } from "../support/io.js";
import { needs, notBuilt } from "../support/needs.js";
import { startViewer, sumEval, sumSpell, type Viewer } from "../support/view.js";

const REPO = join(import.meta.dirname, "..", "..");
const ARTIFACTS = join(REPO, "tests", "artifacts", "view");
const DOCS = process.env["SPELLBOOK_DOCS_SHOTS"] === "1" ? join(REPO, "docs", "viewer") : null;
const ARGS = [
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

let browser: Browser;
let viewer: Viewer;
let root: string;
const ids: Record<string, string> = {};

/** `spell eval` (the built CLI) of `spells` in `dir` into runs/NAME; one failing case is expected. */
async function evalRun(name: string, spells: Record<string, string>): Promise<void> {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(spells)) writeFileSync(join(dir, file), text);
  writeFileSync(join(dir, "eval.yaml"), sumEval(Object.keys(spells), 3));
  await promisify(execFile)(
    process.execPath,
    [join(REPO, "bin", "run.js"), "eval", "eval.yaml", "--out", join(root, "runs", name)],
    { cwd: dir, env: { PATH: process.env["PATH"] ?? "", HOME: root } },
  ).catch((err: { code?: number }) => expect(err.code).toBe(1));
}

const summaryOf = (name: string) =>
  JSON.parse(readFileSync(join(root, "runs", name, "summary.json"), "utf8")) as {
    groups: GroupSummary[];
  };
const turnsOf = (loom: string) =>
  readLoomFile(loom).records.filter((r): r is Turn & { type: "turn" } => r.type === "turn");

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  if (DOCS) await page.screenshot({ path: join(DOCS, `${name}.png`), scale: "css" });
}

/** Opens a view and records every request that is not the server's. */
async function open(hash: string): Promise<{ page: Page; foreign: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  const foreign: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(viewer.base)) foreign.push(r.url());
  });
  await page.goto(`${viewer.base}/${hash}`);
  return { page, foreign };
}

/** The WCAG contrast ratio of an element's text against its nearest opaque background. */
const contrast = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      let bg = "rgb(255, 255, 255)";
      for (let e: Element | null = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        if (rgb(c).length === 3 || rgb(c)[3] === 1) {
          bg = c;
          break;
        }
      }
      const [a, b] = [lum(getComputedStyle(el).color), lum(bg)].sort((x, y) => y - x);
      return (a! + 0.05) / (b! + 0.05);
    });

const TARGET_A = "alpha.yaml × scripted/default";
const TARGET_B = "beta.yaml × scripted/default";
const pct = (x: number) => `${(100 * x).toFixed(1).replace(/\.0$/, "")}%`;

needs(noChromium, notBuilt()).describe("spell view as pictures, in Chromium", () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    if (DOCS) mkdirSync(DOCS, { recursive: true });
    root = mkdtempSync(join(tmpdir(), "view-pictures-"));
    mkdirSync(join(root, "runs"));
    // Cases one-two (3), two-two (4), three-two (5), three repeats each, in that order.
    await evalRun("before", {
      "alpha.yaml": sumSpell("alpha", ["3", "3", "3", "4", "5", "4", "5", "6", "6"]),
      "beta.yaml": sumSpell("beta", ["3", "3", "4", "4", "4", "5", "5", "5", "5"]),
    });
    // alpha: two-two improves; its replies run out in three-two (two casts error).
    // beta: three-two regresses.
    await evalRun("after", {
      "alpha.yaml": sumSpell("alpha", ["3", "3", "3", "4", "4", "4", "5"], false),
      "beta.yaml": sumSpell("beta", ["3", "3", "4", "4", "4", "5", "5", "6", "6"]),
    });
    // A loom of three casts of a spell recorded beside it (a fork needs it).
    const spell = join(root, "owl.yaml");
    writeFileSync(spell, sumSpell("owl", ["three owls"]));
    for (const intent of ["How many owls at dusk?", "How many owls at dawn?", "How many bats?"]) {
      const o = io();
      expect(
        await runCommand(spell, { loom: join(root, "runs", "owls.jsonl"), quiet: true, intent }, o),
        o.err,
      ).toBe(EXIT.ok);
    }
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: process.env["SPELLBOOK_CHROMIUM"] || "/usr/bin/chromium",
      args: ARGS,
      chromiumSandbox: !ARGS.includes("--no-sandbox"),
      headless: true,
      timeout: 60_000,
    });
    viewer = await startViewer(join(root, "runs"), undefined, {
      fork: forkRunner({ ...io(), env: { PATH: process.env["PATH"] ?? "" }, cwd: root }),
    });
    const sources = (await (await fetch(`${viewer.base}/api/sources`)).json()) as {
      id: string;
      name: string;
    }[];
    for (const s of sources) ids[s.name] = s.id;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await viewer?.app.close();
  });

  it("an eval run: pass rate bars per target and case, pass@k, cost and latency, the heat map — each number as the summary says", async () => {
    const { page, foreign } = await open(`#/ev/${ids["before"]}`);
    await page.locator("[data-chart=pass-k] canvas").first().waitFor();
    const summary = summaryOf("before");
    const rows = readFileSync(join(root, "runs", "before", "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string; cost_usd: number; latency_ms: number });
    for (const g of summary.groups) {
      const target = `${g.spell} × ${g.llm}`;
      const bar = page.locator(`[data-bars=target] tr[data-rate-of="${target}"]`);
      // Rounded for people, exact on hover.
      expect(await bar.locator(".rate").innerText()).toBe(pct(g.pass_rate));
      expect(Number(await bar.locator(".rate").getAttribute("title"))).toBeCloseTo(g.pass_rate, 12);
      expect(await bar.innerText()).toContain(`${g.passed}/${g.passed + g.failed}`);
      for (const [name, c] of Object.entries(g.cases)) {
        const row = page.locator(`[data-bars=case] tr[data-rate-of="${name} · ${target}"]`);
        expect(await row.locator(".rate").innerText()).toBe(pct(c.pass_rate));
        expect(await row.innerText()).toContain(`${c.pass}/${c.pass + c.fail}`);
      }
      // pass@k and pass^k at k = repeat: the summary's; the curve's table has k = 1 … repeat.
      const k = page.locator(`tr[data-k-of="${target}"]`);
      const at = Number(await k.locator(`[data-pass-at="${g.k}"]`).getAttribute("title"));
      const hat = Number(await k.locator(`[data-pass-hat="${g.k}"]`).getAttribute("title"));
      expect(at).toBeCloseTo(g.pass_at_k, 12);
      expect(hat).toBeCloseTo(g.pass_hat_k, 12);
      expect(await k.locator("[data-pass-at]").count()).toBe(g.k);
      // Latency p95 per target: the summary's nearest rank.
      const lat = page.locator(`[data-table=latency] tr[data-spread-of="${target}"]`);
      expect(Number(await lat.locator("[data-p95]").getAttribute("title"))).toBe(g.p95_latency_ms);
    }
    expect(summary.groups.map((g) => `${g.spell} × ${g.llm}`).sort()).toEqual([TARGET_A, TARGET_B]);
    // The headline: the whole run.
    const passed = rows.filter((r) => r.status === "pass").length;
    const decided = rows.filter((r) => r.status !== "error").length;
    expect(await page.locator("[data-tile='pass rate'] b").innerText()).toBe(pct(passed / decided));
    const cost = rows.reduce((a, r) => a + r.cost_usd, 0);
    expect(Number(await page.locator("[data-tile=cost]").getAttribute("title"))).toBeCloseTo(
      cost,
      12,
    );
    expect(await page.locator("[data-tile=cost] b").innerText()).toMatch(/^\$0\.\d{0,5}[1-9]\d?$/);
    // Every chart is labelled for a screen reader and followed by its numbers as a table.
    for (const name of ["pass-k", "cost", "latency"]) {
      expect(
        await page.locator(`[data-chart=${name}] [role=img]`).getAttribute("aria-label"),
      ).toMatch(/\S/);
      expect(await page.locator(`table[data-table=${name}] tbody tr`).count()).toBeGreaterThan(0);
    }
    // The heat map: a cell per cast, each a link to its cast.
    expect(await page.locator("td.cell a").count()).toBe(rows.length);
    for (const sel of ["td.cell.pass a", "td.cell.fail a", ".tile span", ".hint", "caption"])
      expect(await contrast(page, sel), sel).toBeGreaterThanOrEqual(4.5);
    await shot(page, "eval-run");
    await page.locator("[data-chart=pass-k]").scrollIntoViewIfNeeded();
    await shot(page, "eval-charts");
    await page.locator(`td[data-cell="three-two · ${TARGET_A}/1"] a`).click();
    // The cast's last turn opens in place in its entity's timeline.
    await page.locator(".vopen [data-open-turn]").waitFor();
    expect(foreign).toEqual([]);
    await page.close();
  });

  it("two runs side by side: regressed, newly errored (not gone), improved; the two casts' threads, their first difference marked", async () => {
    const { page } = await open(`#/ev/${ids["after"]}`);
    await page.locator(`[data-compare-with="${ids["before"]}"]`).click();
    await page.locator("tr[data-change]").first().waitFor();
    const changes = Object.fromEntries(
      await page
        .locator("tr[data-change]")
        .evaluateAll((trs) =>
          trs.map((t): [string, string] => [
            t.getAttribute("data-change-of") ?? "",
            t.getAttribute("data-change") ?? "",
          ]),
        ),
    );
    expect(changes).toEqual({
      [`one-two · ${TARGET_A}`]: "unchanged",
      [`two-two · ${TARGET_A}`]: "improved",
      [`three-two · ${TARGET_A}`]: "newly errored",
      [`one-two · ${TARGET_B}`]: "unchanged",
      [`two-two · ${TARGET_B}`]: "unchanged",
      [`three-two · ${TARGET_B}`]: "regressed",
    });
    expect(await page.locator("[data-count=regressed] b").innerText()).toBe("1");
    expect(await page.locator("body").innerText()).not.toMatch(/\bgone\b/);
    await page.locator(`tr[data-change-of="three-two · ${TARGET_B}"] a`).click();
    const before = page.locator("[data-side=before] [data-first-diff]");
    const after = page.locator("[data-side=after] [data-first-diff]");
    await after.waitFor();
    await before.waitFor();
    // The casts differ in what they answered: each side shows its own.
    const gists = await page.locator("[data-diff-gist]").allInnerTexts();
    expect(gists).toHaveLength(2);
    expect(gists[0]).toContain('"answer":"5"');
    expect(gists[1]).toContain('"answer":"6"');
    await shot(page, "compare-runs");
    await page.close();
  });

  it("entities: searched by intent, filtered, sorted by a column", async () => {
    const { page } = await open(`#/l/${ids["owls.jsonl"]}`);
    await expect.poll(() => page.locator("[data-entity]").count()).toBe(3);
    await page.locator("input[name=q]").fill("owls");
    await expect.poll(() => page.locator("[data-entity]").count()).toBe(2);
    expect(await page.locator("[data-total]").getAttribute("data-total")).toBe("2");
    await page.locator("[data-sort=intent]").click();
    await page.locator("[data-sort=intent]").click(); // descending
    await expect
      .poll(() => page.locator("[data-entity] .intent").allInnerTexts())
      .toEqual(["How many owls at dusk?", "How many owls at dawn?"]);
    await page.locator("select[name=status]").selectOption("open");
    await expect.poll(() => page.locator("[data-entity]").count()).toBe(0);
    await page.locator("select[name=status]").selectOption("ended");
    await page.locator("input[name=q]").fill("");
    await expect.poll(() => page.locator("[data-entity]").count()).toBe(3);
    await shot(page, "entities");
    await page.close();
  });

  it("a fork from a turn in the page: in the loom, from that turn, with the edited intent; a branch in the timeline", async () => {
    const loom = join(root, "runs", "owls.jsonl");
    const origin = turnsOf(loom).find((t) => t.metadata["intent"] === "How many bats?")!;
    const base = `#/l/${ids["owls.jsonl"]}/e/${encodeURIComponent(origin.entity_id)}`;
    const { page } = await open(`${base}/t/${encodeURIComponent(origin.id)}`);
    // The turn opens in place: under its row, no side pane.
    const panel = page.locator(".vopen [data-open-turn]");
    await panel.waitFor();
    expect(await page.locator(".right, .split").count()).toBe(0);
    const form = page.locator(`[data-fork-form="${origin.id}"]`);
    expect(await form.locator("textarea").inputValue()).toBe("How many bats?");
    await form.locator("textarea").fill("How many bats at dawn?");
    await form.locator("button[type=submit]").click();
    await form.locator("[data-forked]").waitFor({ timeout: 30_000 });
    const entity = await form.locator("[data-forked]").getAttribute("data-forked");
    const forked = turnsOf(loom).filter((t) => t.entity_id === entity);
    expect(forked).toHaveLength(1);
    expect(forked[0]).toMatchObject({ parent_id: origin.id });
    expect(forked[0]!.metadata["fork"]).toMatchObject({ from_turn: origin.id });
    expect(forked[0]!.metadata["intent"]).toBe("How many bats at dawn?");
    // The fork appears as a branch under the turn, without a reload.
    const branch = page.locator(`[data-turn-id="${forked[0]!.id}"]`);
    await branch.waitFor();
    expect(await branch.getAttribute("data-branch")).toBe("fork");
    // The row under the opened turn lies below what the turn shows.
    const panelBox = (await page.locator(".vopen").boundingBox())!;
    const rowBox = (await branch.boundingBox())!;
    expect(rowBox.y).toBeGreaterThanOrEqual(panelBox.y + panelBox.height - 1);
    await branch.scrollIntoViewIfNeeded();
    await shot(page, "fork");
    await page.locator("[data-turn-id][aria-expanded=true]").click(); // closes it
    await page.locator(".vopen").waitFor({ state: "detached" });
    await page.close();
  });
});
