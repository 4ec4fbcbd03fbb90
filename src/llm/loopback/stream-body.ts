/**
 * What a real server does when a client asks for a stream: the same reply, as server-sent
 * events. The loopback provider uses this to answer streaming requests from a body written
 * once (a conformance case's `raw_response`), in each provider's own event format.
 */

type Obj = Record<string, unknown>;

/** A chat completion → `chat.completion.chunk` events (text, then each tool call, finish, usage). */
export function chatCompletionToSSE(body: Obj): string {
  const head = pick(body, [
    "id",
    "created",
    "model",
    "system_fingerprint",
    "service_tier",
    "provider",
  ]);
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices, usage })}\n\n`;
  const choice = ((body["choices"] as Obj[] | undefined) ?? [])[0] ?? {};
  const message = (choice["message"] as Obj | undefined) ?? {};
  const role = typeof message["role"] === "string" ? message["role"] : "assistant";
  const toolCallId = pick(message, ["tool_call_id"]);
  let out = chunk([{ index: 0, delta: { role, ...toolCallId, content: "" }, finish_reason: null }]);
  for (const key of ["reasoning", "reasoning_content", "content", "refusal"]) {
    if (typeof message[key] === "string" && message[key] !== "") {
      out += chunk([{ index: 0, delta: { [key]: message[key] }, finish_reason: null }]);
    }
  }
  ((message["tool_calls"] as Obj[] | undefined) ?? []).forEach((call, index) => {
    const fn = (call["function"] as Obj | undefined) ?? {};
    out += chunk([
      {
        index: 0,
        delta: { tool_calls: [{ index, ...pick(call, ["id", "type"]), function: fn }] },
        finish_reason: null,
      },
    ]);
  });
  out += chunk([{ index: 0, delta: {}, finish_reason: choice["finish_reason"] ?? "stop" }]);
  if (body["usage"]) out += chunk([], body["usage"]);
  return `${out}data: [DONE]\n\n`;
}

/** An Anthropic Message → Messages stream events (message_start, blocks with deltas, message_delta, message_stop). */
export function anthropicMessageToSSE(body: Obj): string {
  const event = (type: string, data: Obj) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = (body["usage"] as Obj | undefined) ?? {};
  let out = event("message_start", {
    message: { ...body, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  ((body["content"] as Obj[] | undefined) ?? []).forEach((block, index) => {
    const type = block["type"];
    if (type === "text") {
      out += event("content_block_start", { index, content_block: { type, text: "" } });
      out += event("content_block_delta", {
        index,
        delta: { type: "text_delta", text: block["text"] },
      });
    } else if (type === "thinking") {
      out += event("content_block_start", {
        index,
        content_block: { type, thinking: "", signature: "" },
      });
      out += event("content_block_delta", {
        index,
        delta: { type: "thinking_delta", thinking: block["thinking"] },
      });
      out += event("content_block_delta", {
        index,
        delta: { type: "signature_delta", signature: block["signature"] },
      });
    } else if (type === "tool_use") {
      out += event("content_block_start", { index, content_block: { ...block, input: {} } });
      out += event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block["input"] ?? {}) },
      });
    } else {
      out += event("content_block_start", { index, content_block: block });
    }
    out += event("content_block_stop", { index });
  });
  out += event("message_delta", {
    delta: {
      stop_reason: body["stop_reason"] ?? "end_turn",
      stop_sequence: body["stop_sequence"] ?? null,
    },
    usage: { output_tokens: usage["output_tokens"] ?? 0 },
  });
  return out + event("message_stop", {});
}

/** The SSE form of a reply body, when it is a completion or a message; undefined otherwise. */
export function bodyToSSE(body: unknown): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const o = body as Obj;
  if (Array.isArray(o["choices"])) return chatCompletionToSSE(o);
  if (o["type"] === "message" && Array.isArray(o["content"])) return anthropicMessageToSSE(o);
  return undefined;
}

function pick(o: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
