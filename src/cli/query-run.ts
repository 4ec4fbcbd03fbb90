/**
 * `spell run query.yaml` (kind: query, Appendix A.1): the one call, its content on stdout (with
 * --json, `{content, usage}` in snake_case). --intent replaces the content of the last user
 * message. A query records nothing: --loom is refused, and no loom is opened.
 */
import { errorMessage } from "../core/errors.js";
import { redactedJson } from "../core/redact-stream.js";
import type { Message } from "../core/contract.js";
import type { LoadedDocument } from "../spell/index.js";
import type { QueryProgram } from "../spell/kinds/index.js";
import { EXIT, print, type CliIO } from "./io.js";
import { exitFor } from "./load.js";
import type { RunFlags } from "./run-flags.js";

export async function runQuery(
  loaded: LoadedDocument,
  flags: RunFlags,
  io: CliIO,
): Promise<number> {
  if (flags.loom !== undefined) {
    io.stderr("spell run: a query records nothing (no entity, no loom): --loom is not taken\n");
    return EXIT.invalid;
  }
  const query = loaded.value as QueryProgram;
  const redact = (t: string): string => loaded.redactor.redact(t);
  try {
    const answer = await query.run(withIntent(query.messages, flags.intent));
    const { promptTokens, completionTokens, cachedTokens } = answer.usage;
    const text = flags.json
      ? redactedJson(
          {
            content: answer.content,
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: completionTokens,
              cached_tokens: cachedTokens,
              total_tokens: promptTokens + completionTokens,
            },
          },
          redact,
        )
      : redact(answer.content ?? "");
    await print(io, `${text}\n`);
    return EXIT.ok;
  } catch (err) {
    io.stderr(redact(`spell run failed: ${errorMessage(err)}\n`));
    return exitFor(err);
  }
}

/** The messages with the last user message's content replaced by `intent`, when one is given. */
function withIntent(messages: readonly Message[], intent: string | undefined): Message[] {
  const out = messages.map((m) => ({ ...m }));
  if (intent === undefined) return out;
  const last = out.map((m) => m.role).lastIndexOf("user");
  if (last < 0) out.push({ role: "user", content: intent });
  else out[last] = { role: "user", content: intent };
  return out;
}
