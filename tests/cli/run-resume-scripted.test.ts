// `spell run --resume` of a cast whose scripted llm ran out of replies: the resumed cast goes on
// at the reply after the last one its recorded turns used (never from the first again), and the
// hint says to add replies first. The real CLI (bin/run.js, built by `npm run build`).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { readLoomFile } from "../../src/loom/stores/index.js";
import { runCli } from "../eval/support/harness.js";
import { needs, notBuilt } from "../support/needs.js";

const SPELL = `name: counter
llm:
  provider: scripted
  responses:
    - code: "var n = 41; n"
    - code: "n = n + 1; n"
identity: { system_prompt: Count. }
intent: count up
circle:
  medium: code
  gates: [done]
  wards: [{ max_turns: 6 }]
`;

const turnsIn = (dir: string) =>
  (
    readLoomFile(join(dir, "loom.jsonl")).records.filter((r) => r.type === "turn") as {
      entity_id: string;
      sequence: number;
      utterance: string;
    }[]
  ).map((t) => [t.sequence, t.utterance]);

describe("spell run --resume with a scripted llm that ran out", { timeout: 120_000 }, () => {
  // Skipped only when dist/ is missing: run `npm run build` first (the test spawns bin/run.js).
  needs(notBuilt("dist")).it(
    "continues at the next reply once replies are added; resumed as is, it runs out again and replays nothing",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "resume-scripted-"));
      writeFileSync(join(dir, "counter.yaml"), SPELL);
      const args = ["run", "counter.yaml", "--loom", "loom.jsonl"];

      const first = await runCli(args, {}, dir);
      expect(first.code).toBe(3);
      expect(first.stderr).toMatch(/no response left for query 3 \(it lists 2\)/);
      const hint =
        /add replies under llm\.responses, then resume with: (spell run counter\.yaml --resume (\S+) --loom loom\.jsonl)\n/.exec(
          first.stderr,
        );
      expect(hint, first.stderr).not.toBeNull();
      const id = hint![2]!;
      const two = [
        [1, "var n = 41; n"],
        [2, "n = n + 1; n"],
      ];
      expect(turnsIn(dir)).toEqual(two);

      // Resumed without new replies: the script is still used up at query 3 — reply 1 is not replayed.
      const again = await runCli([...args, "--resume", id], {}, dir);
      expect(again.code).toBe(3);
      expect(again.stderr).toMatch(/no response left for query 3 \(it lists 2\)/);
      expect(turnsIn(dir)).toEqual(two);

      // A reply added: the cast goes on with it, the variables replayed from the recorded turns.
      writeFileSync(
        join(dir, "counter.yaml"),
        SPELL.replace(
          '    - code: "n = n + 1; n"\n',
          '    - code: "n = n + 1; n"\n    - code: "done(n + 1)"\n',
        ),
      );
      const done = await runCli([...args, "--resume", id, "-q"], {}, dir);
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      expect(done.stdout).toBe("43\n");
      expect(turnsIn(dir)).toEqual([...two, [3, "done(n + 1)"]]);
    },
  );
});
