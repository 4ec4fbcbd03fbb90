/**
 * Tests that need something of the machine say so here, with the reason it is missing
 * (undefined when it is there):
 *
 *   needs(REDIS_MISSING, notBuilt).describe("queued casts", () => { … });
 *   needs(noBwrap).it("the sandbox holds", async () => { … });
 *
 * - `needs(...)`: a service a runner installs (bubblewrap, Redis, PostgreSQL, Chromium, tmux, a
 *   built dist/, …). Missing on a developer's machine, the tests skip, the reason in their name
 *   (`— skipped: <reason>`), and the run's summary counts them (tests/support/skip-reporter.ts).
 *   Missing under CI (CI=true), they FAIL with the reason: a runner without the service would
 *   otherwise pass without running them.
 * - `onlyWhere(...)`: a fact of the machine no runner install changes (not Linux, not root):
 *   the tests skip everywhere, CI included, the reason in their name, and are counted alike.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it, type TestFunction, type TestOptions } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** Whether this run is CI's (`CI=true`, as GitHub Actions and most runners set it). */
export const IN_CI = /^(1|true|yes)$/i.test(process.env["CI"] ?? "");

/** How a skipped test's name ends: the reporter reads the reason back from it. */
export const SKIPPED = " — skipped: ";

/** A reason something is missing, or nothing when it is there. */
export type Missing = string | undefined | null | false;

type SuiteBody = () => void | Promise<void>;

/** `describe` and `it`, run, skipped or failed as the machine allows. */
export interface Gate {
  describe(name: string, body: SuiteBody): void;
  describe(name: string, options: TestOptions, body: SuiteBody): void;
  it(name: string, body: TestFunction, timeout?: number): void;
  it(name: string, options: TestOptions, body: TestFunction): void;
}

const run: Gate = {
  describe: (name: string, ...rest: unknown[]) =>
    void (describe as (...a: unknown[]) => unknown)(name, ...rest),
  it: (name: string, ...rest: unknown[]) =>
    void (it as (...a: unknown[]) => unknown)(name, ...rest),
};

/** The reasons given, as one; undefined when none is. */
export function reasonOf(missing: readonly Missing[]): string | undefined {
  const reasons = missing
    .filter((m): m is string => typeof m === "string" && m !== "")
    .map((m) => m.replace(/^skipped: /, ""));
  return reasons.length > 0 ? [...new Set(reasons)].join("; ") : undefined;
}

function skipping(why: string): Gate {
  return {
    describe: (name: string, ...rest: unknown[]) =>
      void (describe.skip as (...a: unknown[]) => unknown)(`${name}${SKIPPED}${why}`, ...rest),
    it: (name: string, ...rest: unknown[]) =>
      void (it.skip as (...a: unknown[]) => unknown)(`${name}${SKIPPED}${why}`, ...rest),
  };
}

function failing(why: string): Gate {
  const fail = () => {
    throw new Error(`missing under CI=true: ${why}`);
  };
  return {
    describe: (name: string) => void describe(name, () => void it(`needs: ${why}`, fail)),
    it: (name: string) => void it(`${name} (needs: ${why})`, fail),
  };
}

/** See the file's comment: skips locally, fails under CI, when a service is missing. */
export function needs(...missing: Missing[]): Gate {
  const why = reasonOf(missing);
  if (why === undefined) return run;
  return IN_CI ? failing(why) : skipping(why);
}

/** See the file's comment: skips everywhere when a fact of the machine rules the test out. */
export function onlyWhere(...missing: Missing[]): Gate {
  const why = reasonOf(missing);
  return why === undefined ? run : skipping(why);
}

/** Why a test spawning the CLI (bin/run.js) or importing dist/ cannot: `file` of dist/ is not built. */
export function notBuilt(file = "dist/spell.cjs"): string | undefined {
  return existsSync(resolve(ROOT, file)) ? undefined : `${file} is not built (npm run build)`;
}
