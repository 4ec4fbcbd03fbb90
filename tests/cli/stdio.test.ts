// src/cli/stdio.ts: `spell run` writes its stdout/stderr without opening Node's streams on them
// while it can, and asks whether an fd is a terminal without loading node:tty for a file, a pipe
// or /dev/null (start-up). The child processes run the built module (dist/cli/stdio.js).
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isatty } from "node:tty";
import { describe, expect, it } from "vitest";
import { isTerminal } from "../../src/cli/stdio.js";

/** Runs `body` (an ES module's text after stdio.js is imported as `s`) in a child process. */
const child = (body: string, stdio: "pipe" | number = "pipe") =>
  spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import * as fs from "node:fs"; const s = await import("./dist/cli/stdio.js");\n${body}
process.on("exit", () => process._rawDebug("LOADED " + process.moduleLoadList.filter((m) => /^NativeModule (net|tty|internal\\/fs\\/sync_write_stream)$/.test(m)).map((m) => m.slice(13)).join(",")));`,
    ],
    { encoding: "utf8", stdio: ["ignore", stdio, "pipe"] },
  );

describe("isTerminal", () => {
  it("answers as tty.isatty for a file, a pipe, /dev/null and a closed fd", () => {
    const dir = mkdtempSync(join(tmpdir(), "stdio-"));
    const file = openSync(join(dir, "f"), "w");
    const devNull = openSync("/dev/null", "w");
    try {
      for (const fd of [file, devNull, 987_654]) {
        expect(isTerminal(fd)).toBe(false);
        expect(isatty(fd)).toBe(false);
      }
    } finally {
      closeSync(file);
      closeSync(devNull);
    }
    // In a child whose stdout is a pipe and stdin /dev/null, without loading node:tty or net.
    const r = child(
      "process._rawDebug(`${s.isTerminal(0)} ${s.isTerminal(1)} ${s.isTerminal(2)}`);",
    );
    expect(r.stderr.split("\n")[0]).toBe("false false false");
    expect(r.stderr).toContain("LOADED \n");
  });
});

describe("directOutput", () => {
  it("writes to a pipe or a file without opening Node's stream on it", () => {
    const body = `const out = s.directOutput(1, async () => true);
out.write("héllo ");
out.write("world\\n");
process._rawDebug("drained " + (await out.drain()));`;
    const piped = child(body);
    expect(piped.stdout).toBe("héllo world\n");
    expect(piped.stderr).toContain("drained true\n");
    expect(piped.stderr).toContain("LOADED \n");
    const path = join(mkdtempSync(join(tmpdir(), "stdio-")), "out");
    const fd = openSync(path, "w");
    const toFile = child(body, fd);
    closeSync(fd);
    expect(readFileSync(path, "utf8")).toBe("héllo world\n");
    expect(toFile.stderr).toContain("LOADED \n");
  });

  it("hands the rest to the stream after a failed write (EAGAIN, EPIPE…), in order", () => {
    // The first write takes 2 bytes, the next fails: the stream writes the rest, and all after.
    const r = child(`let calls = 0;
const out = s.directOutput(1, async () => true, (fd, bytes, at) => {
  if (++calls === 1) return fs.writeSync(fd, bytes, at, 2);
  throw Object.assign(new Error("EAGAIN: resource temporarily unavailable"), { code: "EAGAIN" });
});
out.write("hello ");
out.write("world\\n");
process._rawDebug("calls " + calls);`);
    expect(r.stdout).toBe("hello world\n");
    expect(r.stderr).toContain("calls 2\n");
    expect(r.stderr).toMatch(/LOADED net\b/);
  });

  it("writes through the stream once anyone has opened it, so nothing is reordered", () => {
    const r = child(`let calls = 0;
const out = s.directOutput(1, async () => true, (fd, bytes, at) => (calls++, fs.writeSync(fd, bytes, at)));
out.write("a");
process.stdout.write("b");
out.write("c\\n");
process._rawDebug("calls " + calls);`);
    expect(r.stdout).toBe("abc\n");
    expect(r.stderr).toContain("calls 1\n");
  });
});
