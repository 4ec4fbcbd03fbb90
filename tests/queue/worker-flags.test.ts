// `spell worker`'s durations are handed to BullMQ, which waits them with setTimeout: one past
// 2^31-1 ms fires at once, and the stalled-jobs check then ran against Redis every millisecond.
import { parse } from "@oclif/core/parser";
import { describe, expect, it } from "vitest";
import Worker from "../../src/commands/worker.js";

const argv = (...more: string[]) => ["--queue", "redis://127.0.0.1:6379", ...more];

describe("spell worker's durations", () => {
  for (const flag of ["--lock-ms", "--stalled-check-ms"]) {
    it(`${flag} past the longest timer is refused where it is written`, async () => {
      await expect(parse(argv(flag, "3000000000"), { flags: Worker.flags })).rejects.toThrow(
        /2147483647/,
      );
      const { flags } = await parse(argv(flag, "2147483647"), { flags: Worker.flags });
      expect(Object.values(flags)).toContain(2147483647);
    });
  }
});
