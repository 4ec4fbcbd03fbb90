/**
 * A PostgreSQL loom's password, however the URL spells it, never reaches what a command shows:
 * `pg` connects with a URL whose password holds a malformed `%` escape (`a%zz…`, read as written)
 * or an `@`, so the redactor must know that password too (it used to throw on decoding it and
 * redact nothing), and a URL that does not parse is still shown without any of its password.
 * The server trusts every password (tests/support/postgres-server.mjs): nothing here needs one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loomImportCommand } from "../../src/cli/loom-import.js";
import { viewCommand } from "../../src/cli/view.js";
import { loomSecrets, shownLoom } from "../../src/loom/open/index.js";
import { postgresLoomStore, redactUrl, withoutUrlSecrets } from "../../src/loom/postgres/index.js";
import { Redactor } from "../../src/core/redact.js";
import { io } from "../support/io.js";
import { needs } from "../support/needs.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { recordTwoCasts } from "../support/recorded-loom.js";

const SECRET = "zq%zzS3cretPw";

describe("a database URL's password, in any spelling", () => {
  const urls: [string, string][] = [
    [`postgres://u:${SECRET}@h/db`, SECRET], // a malformed escape: pg reads it as written
    ["postgres://u:pw%2Xw0rdSecret@h/db", "pw%2Xw0rdSecret"],
    ["postgres://u:ab@cdS3cret@h:99999/db", "ab@cdS3cret"], // does not parse (the port)
    ["postgres://u:ab@cdS3cret@bad host/db", "ab@cdS3cret"], // a space: pg encodes it first
    ["postgres://u:p%40ssS3cret@h/db", "p@ssS3cret"],
  ];

  it.each(urls)("%s: known to the redactor, never shown", (url, password) => {
    expect(loomSecrets(url)).toContain(password);
    const redactor = new Redactor();
    for (const s of loomSecrets(url)) redactor.add(s);
    for (const text of [
      password,
      encodeURIComponent(password),
      Buffer.from(password).toString("base64"),
      JSON.stringify({ p: password }),
    ])
      expect(redactor.redact(`said: ${text}`)).not.toContain(password.slice(-6));
    for (const shown of [redactUrl(url), shownLoom(url), withoutUrlSecrets(`at ${url}`, url)])
      expect(shown).not.toMatch(/S3cret|w0rdSecret/);
  });
});

describe("a URL pg cannot read", () => {
  it("spell view says why, without any of the password", async () => {
    for (const url of [
      "postgres://u:ab@cdS3cret@127.0.0.1:99999/db",
      "postgres://u:ab@cdS3cret@[::1/db",
      "postgres://u:zq%zzS3cret@127.0.0.1:1/db",
    ]) {
      const out = io();
      expect(await viewCommand(url, { port: 0 }, out, Promise.resolve(), "")).not.toBe(0);
      expect(out.err).toMatch(/PostgreSQL loom at postgres:\/\/u:\*\*\*@/);
      expect(out.out + out.err).not.toMatch(/S3cret|cdS3/);
    }
  });
});

const server = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "loom-url-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

needs(noPostgres).describe("spell view on a database whose password has a malformed escape", () => {
  it("a record holding the password is shown redacted, in every answer", async () => {
    const file = join(dir, "source.jsonl");
    const turns = await recordTwoCasts(file, "secret test");
    const bare = await server().createDatabase(); // postgres://postgres@127.0.0.1:PORT/db
    const url = bare.replace("postgres@", `postgres:${SECRET}@`);
    const imported = io();
    expect(await loomImportCommand(file, { to: url }, imported), imported.err).toBe(0);
    // A turn that said the password (an LLM that read the environment, say).
    const store = postgresLoomStore(url);
    const last = (await store.turn(turns.at(-1)!))!;
    await store.append({
      type: "turn",
      ...last,
      id: "turn_said",
      parent_id: last.id,
      sequence: last.sequence + 1,
      utterance: `the url is ${url}; the password ${SECRET}, encoded ${encodeURIComponent(SECRET)}`,
      reward: null,
    });
    await store.close();

    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const out = io();
    const running = viewCommand(url, { port: 0 }, out, stopped, "/* app */");
    let address: string | undefined;
    for (let i = 0; i < 600 && !address; i++) {
      address = /listening on (http:\/\/[^/\s]+)\//.exec(out.err)?.[1];
      if (!address) await new Promise((r) => setTimeout(r, 50));
    }
    try {
      expect(address, out.err).toBeDefined();
      const bodies: string[] = [];
      for (const path of ["/", "/api/sources", "/api/l/0/stat", "/api/l/0/entities"])
        bodies.push(await (await fetch(`${address}${path}`)).text());
      let said = "";
      for (let i = 0; i < 200 && !said.includes("turn_said"); i++)
        said = await (await fetch(`${address}/api/l/0/t/turn_said`)).text();
      expect(said).toContain("the password");
      bodies.push(said);
      for (const body of [...bodies, out.err, out.out]) {
        expect(body).not.toContain("S3cretPw");
        expect(body).not.toContain(Buffer.from(SECRET).toString("base64"));
      }
    } finally {
      stop();
      expect(await running, out.err).toBe(0);
    }
  });
});
