/**
 * One way from a loom's location to its store (src/loom/open/open-loom.ts): a path is a file, a
 * postgres:// URL a database (its password never in what is shown), `memory` this process's; and
 * nothing else in src/ asks what kind a location is.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  loomSecrets,
  openLoom,
  openRecordStore,
  portableLoom,
  sameSharedLoom,
  sharedLoom,
  shownLoom,
} from "../../src/loom/open/index.js";
import { turn } from "./store-contract.js";

const dir = mkdtempSync(join(tmpdir(), "open-loom-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const URL_WITH_SECRETS =
  "postgres://me:pw%40secret@127.0.0.1:5432/looms?sslpassword=keypass&sslmode=require";

describe("openLoom", () => {
  it("opens a path as a loom file, written as resolvePath writes it", async () => {
    const store = openLoom("a.jsonl", { resolvePath: (p) => join(dir, p) });
    expect(store.file).toBe(join(dir, "a.jsonl"));
    expect(store.location).toBe(join(dir, "a.jsonl"));
    await store.append({ type: "turn", ...turn("t1", null) });
    await store.close();
    const again = openLoom(join(dir, "a.jsonl"));
    expect((await again.turn("t1"))?.id).toBe("t1");
    await again.close();
  });

  it("opens a postgres:// URL as a database: no file, the password out of its location, nothing connected yet", async () => {
    const store = openLoom(URL_WITH_SECRETS);
    expect(store.file).toBeUndefined();
    expect(store.location).not.toContain("secret");
    expect(store.location).not.toContain("keypass");
    await store.close(); // never connected: closing sends nothing
  });

  it("opens memory as a loom of this process alone", async () => {
    const store = openLoom("memory");
    expect(store.file).toBeUndefined();
    await store.append({ type: "turn", ...turn("t1", null) });
    expect(await store.listEntities()).toHaveLength(1);
    expect(openLoom("memory").location).toBe("memory");
  });

  it("opens the engine's write path the same way, and refuses a file that is not a loom", () => {
    expect(openRecordStore(undefined).location).toBe("memory");
    expect(openRecordStore(URL_WITH_SECRETS).readsBack).toBe(false);
    expect(openRecordStore(join(dir, "b.jsonl")).location).toBe(join(dir, "b.jsonl"));
    expect(() => openRecordStore(join(tmpdir(), "."))).not.toThrow(); // a folder: refused on write
    const notLoom = join(dir, "notes.jsonl");
    writeFileSync(notLoom, '{"hello":1}\n');
    expect(() => openRecordStore(notLoom)).toThrow(/not a loom file/);
  });
});

describe("a location's secrets and how it is shown", () => {
  it("gives a URL's password and ?…pass… options, decoded; none for a file", () => {
    expect(loomSecrets(URL_WITH_SECRETS).sort()).toEqual(["keypass", "pw@secret"]);
    expect(loomSecrets("looms/a.jsonl")).toEqual([]);
  });

  it("shows any URL without its password, a path as it is", () => {
    expect(shownLoom(URL_WITH_SECRETS)).not.toMatch(/secret|keypass/);
    expect(shownLoom("mysql://u:hunter2@h/db")).not.toContain("hunter2");
    expect(shownLoom("looms/a.jsonl")).toBe("looms/a.jsonl");
  });

  it("tells a shared loom, what of it may travel, and whether two name the same", () => {
    expect(sharedLoom(URL_WITH_SECRETS)).toBe(true);
    expect(sharedLoom("a.jsonl")).toBe(false);
    expect(sharedLoom("memory")).toBe(false);
    expect(portableLoom(URL_WITH_SECRETS, new Set(["sslmode"]))).toBe(
      "postgres://me@127.0.0.1:5432/looms?sslmode=require",
    );
    expect(portableLoom("a.jsonl", new Set())).toBe("a.jsonl");
    expect(sameSharedLoom(URL_WITH_SECRETS, "postgres://me@127.0.0.1:5432/looms")).toBe(true);
    expect(sameSharedLoom(URL_WITH_SECRETS, "postgres://other@127.0.0.1:5432/looms")).toBe(false);
    expect(sameSharedLoom("a.jsonl", "a.jsonl")).toBe(false);
  });
});

describe("nothing but open-loom asks what kind a location is", () => {
  it("isPostgresUrl is called only in src/loom/open/open-loom.ts and the PostgreSQL connection", () => {
    const out = execFileSync("grep", ["-rln", "isPostgresUrl", "src"], { encoding: "utf8" });
    const files = out.trim().split("\n");
    expect(files).toContain("src/loom/open/open-loom.ts");
    // The other: where it is defined (the PostgreSQL connection, and its room's index.ts re-exporting it).
    expect(
      files.filter(
        (f) =>
          !/(^|\/)open-loom\.ts$|postgres[/-]connection\.ts$|loom\/postgres\/index\.ts$/.test(f),
      ),
    ).toEqual([]);
  });
});
