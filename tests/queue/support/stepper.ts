/**
 * The queue fault tests' folder: the "stepper" spell (done and echo gates, its model at
 * EVAL_BASE: the wire server answers after two echo calls) and an eval of it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SPELL = `name: stepper
llm: { provider: openai, model: wire-model, base_url: "\${env:EVAL_BASE}", api_key: "\${env:EVAL_KEY}" }
identity: { system_prompt: Answer with the number only. }
circle:
  gates: [done, echo]
  wards: [{ max_turns: 6 }]
`;

/** A new folder with stepper.yaml and eval.yaml: the eval `name`, its `cases` and any `more`. */
export function stepperFolder(prefix: string, name: string, cases: string[], more = ""): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, "stepper.yaml"), SPELL);
  const list = cases.map((c) => `  - ${c}\n`).join("");
  const evalYaml = `kind: eval\nname: ${name}\nspells: [./stepper.yaml]\ncases:\n${list}${more}`;
  writeFileSync(join(dir, "eval.yaml"), evalYaml);
  return dir;
}
