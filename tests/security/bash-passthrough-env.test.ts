import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { castBash } from "../circle/bash-helpers.js";

/**
 * A passthrough command runs straight on the host (no bubblewrap to clear its environment):
 * it must still see only the variables the medium gives it, never the host process's secrets
 * (run-command.ts, commandEnv). Issue 21: a one-line change handing it process.env passed
 * every test.
 */
const NAME = "SPELLBOOK_TEST_HOST_SECRET";
afterEach(() => delete process.env[NAME]);

describe("a passthrough bash command and the host's environment", () => {
  it("`env` shows the medium's variables and none of the host's (a secret set in this process)", async () => {
    const secret = `s3cret-${randomBytes(8).toString("hex")}`;
    process.env[NAME] = secret;
    const { turns } = await castBash({
      commands: ["env; echo end-of-env", 'done "ok"'],
      circle: "  sandbox: passthrough",
    });
    const seen = turns[0]!.observation;
    expect(seen).toContain("end-of-env"); // the command ran and printed its environment
    expect(seen).toMatch(/^SPELL_GATE_SOCKET=/m);
    expect(seen).not.toContain(NAME);
    expect(seen).not.toContain(secret);
    // Nothing else of the host's environment either: only the medium's own names.
    const names = [...seen.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]);
    const hostOnly = names.filter(
      (n) => !/^(PATH|HOME|TMPDIR|LANG|SPELL_GATE_\w+|PWD|SHLVL|_|OLDPWD)$/.test(n!),
    );
    expect(hostOnly).toEqual([]);
  });
});
