/**
 * The intent of a `session/prompt` (PROD-6): ACP content blocks, and the variants clients send
 * when the text is unambiguous — `prompt` or `content` as a string, one block or a list of
 * blocks. Text and embedded text resources become the intent; a resource link is named; images
 * and audio carry no text. A prompt without usable text is a JSON-RPC "invalid params" error.
 */

export interface PromptParams {
  sessionId: string;
  intent: string;
}

/** What `parse` throws for params it cannot read (the agent turns it into -32602). */
export class PromptParamsError extends Error {
  constructor(
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Block = Record<string, unknown>;

const isObject = (v: unknown): v is Block =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** One content block's text: "" when it has none (an image, audio, an unknown block). */
function blockText(block: unknown): string {
  if (typeof block === "string") return block;
  if (!isObject(block)) return "";
  const type = block["type"];
  if ((type === "text" || type === undefined) && typeof block["text"] === "string")
    return block["text"];
  if (type === "resource" && isObject(block["resource"])) {
    const { uri, text } = block["resource"];
    if (typeof text !== "string") return "";
    return typeof uri === "string" ? `<resource uri="${uri}">\n${text}\n</resource>` : text;
  }
  if (type === "resource_link" && typeof block["uri"] === "string") {
    const name = typeof block["name"] === "string" ? block["name"] : block["uri"];
    return `[${name}](${block["uri"]})`;
  }
  return "";
}

/** A prompt in any accepted shape → its text, blocks joined by blank lines. */
function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map(blockText)
    .filter((t) => t.trim() !== "")
    .join("\n\n");
}

/** Parses raw `session/prompt` params (the SDK hands them over unvalidated: see agent.ts). */
export function parsePrompt(raw: unknown): PromptParams {
  if (!isObject(raw)) throw new PromptParamsError("session/prompt params must be an object");
  const sessionId = raw["sessionId"];
  if (typeof sessionId !== "string" || sessionId === "")
    throw new PromptParamsError("session/prompt needs a sessionId");
  const given = (["prompt", "content"] as const).filter((k) => raw[k] !== undefined);
  const texts = given.map((k) => contentText(raw[k]));
  // Both spellings with different text: which one the user meant is not ours to guess.
  if (texts.length === 2 && texts[0] !== texts[1] && texts[0] !== "" && texts[1] !== "")
    throw new PromptParamsError("session/prompt has both prompt and content, and they differ", {
      sessionId,
    });
  const intent = texts.find((t) => t.trim() !== "");
  if (intent === undefined)
    throw new PromptParamsError(
      given.length
        ? "the prompt has no text (text blocks or text resources are needed)"
        : "session/prompt needs a prompt (a list of content blocks)",
      { sessionId },
    );
  return { sessionId, intent };
}
