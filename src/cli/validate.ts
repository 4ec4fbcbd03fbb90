import { displayPath } from "./io.js";
import { SpellErrors, errorMessage } from "../core/errors.js";
import { loadDocument } from "../spell/index.js";
import { EXIT, type CliIO } from "./io.js";
import {
  ApprovalPolicy,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type ApprovalRule,
} from "../circle/approvals.js";

/** `spell validate FILE…`: every problem of every file (of any kind), each at file:line:col. */
export async function validateCommand(files: string[], io: CliIO): Promise<number> {
  let bad = 0;
  for (const file of files) {
    try {
      const loaded = await loadDocument(displayPath(io.cwd, file), {
        env: io.env,
        validateOnly: true,
      });
      for (const w of loaded.warnings)
        io.stderr(`${file}:${w.position.line}:${w.position.col}: warning: ${w.message}\n`);
      io.stdout(`${file}: ok\n`);
      for (const line of asksFor(loaded.document)) io.stdout(`${file}: asks before ${line}\n`);
    } catch (err) {
      bad++;
      const count = err instanceof SpellErrors ? err.errors.length : 1;
      io.stderr(`${errorMessage(err)}\n`);
      io.stdout(`${file}: ${count} error${count === 1 ? "" : "s"}\n`);
    }
  }
  return bad ? EXIT.invalid : EXIT.ok;
}

/** What a spell will ask a person for (issue 25): one line per `circle.approve` item. */
function asksFor(doc: Record<string, unknown>): string[] {
  const circle = doc["circle"] as { approve?: unknown; approval_timeout_ms?: unknown } | undefined;
  if (!Array.isArray(circle?.approve)) return [];
  const timeout =
    typeof circle.approval_timeout_ms === "number"
      ? circle.approval_timeout_ms
      : DEFAULT_APPROVAL_TIMEOUT_MS;
  const policy = new ApprovalPolicy(circle.approve as ApprovalRule[]);
  return policy.describe().map((rule) => `${rule} (no answer in ${String(timeout)} ms: denied)`);
}
