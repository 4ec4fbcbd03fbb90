import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonlLoomStore, memoryLoomStore } from "../../src/loom/stores/index.js";
import { Loom } from "../../src/loom/core/index.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import { loomStoreContract, turn } from "./store-contract.js";

const dir = mkdtempSync(join(tmpdir(), "loom-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

loomStoreContract("JSONL file", () => {
  const path = join(dir, `loom-${++files}.jsonl`);
  return Promise.resolve({
    store: jsonlLoomStore(path),
    reopen: () => Promise.resolve(jsonlLoomStore(path)),
  });
});

loomStoreContract("memory", () => Promise.resolve({ store: memoryLoomStore() }));

describe("the JSONL LoomStore writes the loom file the engine writes", () => {
  it("a file appended through the seam reads back in a Loom, and the reverse", async () => {
    const path = join(dir, "both-ways.jsonl");
    const store = jsonlLoomStore(path);
    await store.append({ type: "turn", ...turn("t1", null) });
    await store.close();
    const loom = new Loom(new JsonlStore(path));
    loom.append(turn("t2", "t1"));
    loom.annotateReward("t2", 1);
    expect(loom.thread("t2").map((t) => t.id)).toEqual(["t1", "t2"]);
    loom.close();
    const again = jsonlLoomStore(path);
    expect((await again.readThread("t2")).map((t) => [t.id, t.reward])).toEqual([
      ["t1", null],
      ["t2", 1],
    ]);
    await again.close();
  });

  it("redacts every record before it reaches the file (PROD-8 at rest)", async () => {
    const path = join(dir, "redacted.jsonl");
    const secret = "sk-test-0123456789abcdef";
    const store = jsonlLoomStore(path, {
      redact: (text) => text.split(secret).join("[REDACTED]"),
    });
    await store.append({ type: "turn", ...turn("t1", null), observation: `key ${secret}` });
    await store.close();
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED]");
  });
});
