import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("../../src/cli/run-process.js", () => ({
  runInProcess: vi.fn(),
}));

const { runInProcess } = await import("../../src/cli/run-process.js");
const { run } = await import("../../src/cli/run-main.js");

describe("the run bundle's entry", () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  it("sets the exit code the cast returns", async () => {
    vi.mocked(runInProcess).mockResolvedValueOnce(2);
    await run("f.yaml", { quiet: true });
    expect(process.exitCode).toBe(2);
  });

  it("sets the exit code as oclif's Command#catch does, and rethrows for its handler", async () => {
    const boom = Object.assign(new Error("boom"), { exitCode: 7 });
    vi.mocked(runInProcess).mockRejectedValueOnce(boom);
    await expect(run("f.yaml", {})).rejects.toBe(boom);
    expect(process.exitCode).toBe(7);
    vi.mocked(runInProcess).mockRejectedValueOnce(new Error("plain"));
    process.exitCode = undefined;
    await expect(run("f.yaml", {})).rejects.toThrow("plain");
    expect(process.exitCode).toBe(1);
  });
});
