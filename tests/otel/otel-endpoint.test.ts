// Where spans go is said on stderr ("sent … to URL", "spans not sent to URL", "not a URL"), but a
// collector's URL may carry its credentials — a token as the user (`https://TOKEN@host`, a DSN),
// a password, a query key. What is said names the collector without them, in any spelling.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomOtelCommand } from "../../src/cli/otel/loom-otel.js";
import { diagText, otelTracer } from "../../src/cli/otel/tracing.js";
import { runCommand } from "../../src/cli/run.js";
import { io } from "../support/io.js";
import { jsonl, loomRecords } from "../support/view.js";

const USER = "otel-user-PLANTED-1f2e";
const PASSWORD = "pw/PLANTED?2&=+%é";
const QUERY = "key-PLANTED-3a4b";
const dir = mkdtempSync(join(tmpdir(), "otel-endpoint-"));
const loom = join(dir, "loom.jsonl");
writeFileSync(loom, jsonl(loomRecords()));

/** Every spelling of a credential that stderr could carry. */
const spellings = (s: string) => [s, encodeURIComponent(s), encodeURIComponent(s).toLowerCase()];
const clean = (text: string) => {
  for (const secret of [USER, PASSWORD, QUERY])
    for (const s of spellings(secret)) expect(text, s).not.toContain(s);
  expect(text).not.toContain("PLANTED");
};

describe("the collector's URL is said without its credentials", () => {
  it("spell loom otel --to: 'sent … to' and 'spans not sent to' name the collector only", async () => {
    // Port 9 on loopback: nothing listens, so the export fails and says so.
    const to = `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:9/?api_key=${QUERY}`;
    // The exporter retries a refused connection until its timeout (10 s by default): 1 s here.
    vi.stubEnv("OTEL_EXPORTER_OTLP_TIMEOUT", "1000");
    onTestFinished(() => void vi.unstubAllEnvs());
    const o = io();
    // Sending is all the command does: nothing taken fails it (issue 45), and it says no "sent".
    expect(await loomOtelCommand(loom, { to }, o), o.err).toBe(EXIT.failure);
    expect(o.err).toContain("spans not sent to http://127.0.0.1:9/v1/traces");
    expect(o.err).not.toMatch(/^sent /m);
    clean(o.err);
  });

  it("a collector URL that is not one is refused without repeating its credentials", async () => {
    for (const to of [
      `ftp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:9/`,
      `http://${USER}:${PASSWORD}@127.0.0.1:9/`, // unencoded: not a URL
      `http://${USER}@[127.0.0.1/`,
    ]) {
      const o = io();
      expect(await loomOtelCommand(loom, { to }, o), to).toBe(EXIT.invalid);
      expect(o.err).toMatch(/--to /);
      clean(o.err);
    }
  });
});

describe("a collector that is not there (README: spell run … --otel http://localhost:4318)", () => {
  it("spell run says so on one line, naming what was not sent and why, never the SDK's stack as JSON", async () => {
    vi.stubEnv("OTEL_EXPORTER_OTLP_TIMEOUT", "1000");
    onTestFinished(() => void vi.unstubAllEnvs());
    const spell = join(dir, "otel-spell.yaml");
    writeFileSync(
      spell,
      "name: s\nllm: { provider: scripted, responses: [{ content: hi }] }\nidentity: { system_prompt: x }\ncircle: { gates: [done], wards: [{ max_turns: 2 }] }\nintent: hi\n",
    );
    const o = io();
    expect(await runCommand(spell, { otel: "http://127.0.0.1:9", loom: "memory" }, o)).toBe(
      EXIT.ok,
    );
    const warnings = o.err.split("\n").filter((l) => l.startsWith("warning: --otel"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: --otel: (spans|metrics) not sent to http:\/\/127\.0\.0\.1:9\/v1\/(traces|metrics): connect ECONNREFUSED 127\.0\.0\.1:9$/,
    );
    expect(o.err).not.toMatch(/"stack"|node_modules/);
  });

  it("a diag error logged as the SDK's JSON reads as its cause", async () => {
    const logged = JSON.stringify({
      stack:
        "Error: PeriodicExportingMetricReader: metrics export failed\n    at x (/n/node_modules/a.js:1:1)",
      message:
        "PeriodicExportingMetricReader: metrics export failed (error Error: connect ECONNREFUSED 127.0.0.1:4318)",
      name: "Error",
    });
    expect(diagText(logged)).toBe("connect ECONNREFUSED 127.0.0.1:4318");
    // As the metrics reader's failure reaches the warning (before: "spans not sent to …/v1/traces:
    // {"stack":"Error: PeriodicExportingMetricReader: …" and the whole stack, on one line).
    const o = io();
    const t = await otelTracer("http://127.0.0.1:9/v1/traces", o);
    t.metricsAt("http://127.0.0.1:9/v1/metrics");
    t.tell(logged);
    t.tell("Error: later ones are not said");
    await t.shutdown();
    expect(o.err).toBe(
      "warning: --otel: metrics not sent to http://127.0.0.1:9/v1/metrics: connect ECONNREFUSED 127.0.0.1:4318\n",
    );
    expect(diagText("Request timed out\nmore")).toBe("Request timed out");
  });
});
