/**
 * `acp_responses: [{ id, has_result, result_contains, error_code, message_contains,
 * updates_include }]`: what the ACP agent answered to the request of `acp_exchange` with that id.
 * `result_contains` looks in the result's JSON and in the agent's message text streamed while
 * the request ran (a prompt's answer arrives as `agent_message_chunk` updates).
 */
import { ConfigError } from "../core/errors.js";
import type { AcpRecord } from "./acp.js";
import type { Outcome } from "./act.js";
import { looselyEqual, show } from "./match.js";

const KEYS = new Set([
  "id",
  "has_result",
  "result_contains",
  "error_code",
  "message_contains",
  "updates_include",
]);

const message = (r: AcpRecord): string =>
  r.updates
    .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
    .map((u) => (u["content"] as { text?: string } | undefined)?.text ?? "")
    .join("");

export function checkAcpResponses(want: unknown, o: Outcome): string | null {
  if (!o.acp) throw new ConfigError("unsupported_expectation", "acp_responses needs acp_exchange");
  if (!Array.isArray(want))
    throw new ConfigError("unsupported_expectation", "acp_responses is a list of { id, … }");
  for (const item of want as Record<string, unknown>[]) {
    for (const k of Object.keys(item))
      if (!KEYS.has(k))
        throw new ConfigError(
          "unsupported_expectation",
          `unsupported expectation: acp_responses[].${k}`,
        );
    if (Object.keys(item).length < 2) return `acp_responses: ${show(item)} checks nothing`;
    const r = o.acp.find((x) => looselyEqual(item["id"], x.id));
    if (!r) return `acp_responses: no request with id ${show(item["id"])} was sent`;
    const failure = checkOne(item, r);
    if (failure) return `acp_responses[id ${show(item["id"])}]: ${failure}`;
  }
  return null;
}

function checkOne(item: Record<string, unknown>, r: AcpRecord): string | null {
  const got = r.error
    ? `error ${r.error.code} ${show(r.error.message)}`
    : `result ${show(r.result)}`;
  if (item["has_result"] !== undefined && (r.result !== undefined) !== item["has_result"])
    return `has_result: expected ${show(item["has_result"])}, got ${got}`;
  if (item["error_code"] !== undefined && !looselyEqual(item["error_code"], r.error?.code))
    return `error_code: expected ${show(item["error_code"])}, got ${got}`;
  const text = message(r);
  const contains = item["result_contains"];
  if (contains !== undefined) {
    const s = typeof contains === "string" ? contains : JSON.stringify(contains);
    if (!JSON.stringify(r.result ?? null).includes(s) && !text.includes(s))
      return `result_contains: ${show(s)} is neither in ${got} nor in the message ${show(text)}`;
  }
  const wanted = item["message_contains"];
  if (wanted !== undefined && !text.includes(typeof wanted === "string" ? wanted : show(wanted)))
    return `message_contains: ${show(wanted)} is not in ${show(text)}`;
  const kinds = r.updates.map((u) => u["sessionUpdate"]);
  for (const kind of (item["updates_include"] as unknown[] | undefined) ?? [])
    if (!kinds.includes(kind))
      return `updates_include: no ${show(kind)} update among ${show(kinds)}`;
  return null;
}
