// Where spans go is said on stderr ("sent … to URL", "spans not sent to URL", "not a URL"), but a
// collector's URL may carry its credentials — a token as the user (`https://TOKEN@host`, a DSN),
// a password, a query key. What is said names the collector without them, in any spelling.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { loomOtelCommand } from "../../src/cli/otel/loom-otel.js";
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
