// Each grimoire spell does what its entry in the spec's Appendix A describes.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";

describe("A.7 Codex: read, write, list_dir, done — it finds the TODOs and writes a summary to out/todos.md", () => {
  it("writes the summary it answers with, inside its out/ root", async () => {
    const dir = mkdtempSync(join(tmpdir(), "codex-"));
    cpSync("grimoire/07-codex.yaml", join(dir, "07-codex.yaml"));
    cpSync("grimoire/data", join(dir, "data"), { recursive: true });
    if (existsSync("grimoire/out")) cpSync("grimoire/out", join(dir, "out"), { recursive: true });
    else mkdirSync(join(dir, "out"));
    const loaded = await loadSpell(join(dir, "07-codex.yaml"), { loomPath: "memory" });
    const result = await loaded.cantrip!.cast(loaded.intent!);
    expect(result.status).toBe("terminated");
    const written = readFileSync(join(dir, "out", "todos.md"), "utf8");
    expect(written).toContain(
      "- project/src/util.js:14 TODO(units): support feet as well as metres.",
    );
    expect(result.result).toContain("out/todos.md");
    const calls = result.loom.turns().flatMap((t) => t.gate_calls.map((c) => c.gate_name));
    expect(calls).toContain("write");
  });
});
