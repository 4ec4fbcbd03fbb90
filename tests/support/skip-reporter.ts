/**
 * Prints, after the run, how many tests skipped and why (their reasons, from the name's
 * `— skipped: …` or `— not run: …` that tests/support/needs.ts and the excluded-case lists put
 * there, or a `ctx.skip(note)`), so a run that skipped a service's tests says so in its summary.
 * Beside vitest's default reporter (vitest.config.ts).
 */
import type { Reporter, TestCase, TestModule } from "vitest/node";

const REASON = / — (?:skipped|not run): (.+)$/;

/** The reason in the name of the test or of the nearest suite around it that has one. */
function namedReason(test: TestCase): string | undefined {
  for (let node: TestCase["parent"] | TestCase = test; node.type !== "module"; node = node.parent) {
    const m = REASON.exec(node.name);
    if (m) return m[1];
  }
  return undefined;
}

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const reasons = new Map<string, number>();
    let skipped = 0;
    for (const module of modules)
      for (const test of module.children.allTests("skipped")) {
        if (test.options.mode === "todo") continue;
        skipped++;
        const result = test.result();
        // `.only` or a name filter skips the rest: no reason to show for those.
        const why = namedReason(test) ?? (result.state === "skipped" ? result.note : undefined);
        const key = why ?? "no reason given (`.only` or a filter elsewhere)";
        reasons.set(key, (reasons.get(key) ?? 0) + 1);
      }
    if (skipped === 0) return;
    const lines = [...reasons].sort((a, b) => b[1] - a[1]).map(([why, n]) => `  ${n} × ${why}`);
    process.stdout.write(`\n${skipped} skipped:\n${lines.join("\n")}\n`);
  }
}
