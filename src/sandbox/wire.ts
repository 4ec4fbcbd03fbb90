/**
 * How the messages of a code turn cross between the main thread and a lane's worker: the run,
 * a gate call, its answer and the run's outcome go as one string each, the others as objects.
 * A string is copied across; an object is structured-cloned field by field, which costs 3–5×
 * more (bench/code: a turn makes four crossings). Strings are fields with their lengths up
 * front, so any text (newlines, separators, any Unicode) crosses as it is.
 */
import type { FromLane, ToLane, WireOutput, WireReply } from "./protocol.js";

/** `lengths;field0field1…` — no field needs escaping. */
function pack(fields: readonly string[]): string {
  let head = "";
  for (let i = 0; i < fields.length; i++) head += (i ? "," : "") + fields[i]!.length;
  return `${head};${fields.join("")}`;
}

function unpack(text: string, from: number): string[] {
  const semi = text.indexOf(";", from);
  const lengths = text.slice(from, semi).split(",");
  const fields: string[] = [];
  let at = semi + 1;
  for (const length of lengths) {
    const n = Number(length);
    fields.push(text.slice(at, at + n));
    at += n;
  }
  return fields;
}

/** Main thread → worker: a run goes as a string, the rest as it is. */
export function encodeToLane(message: ToLane): ToLane | string {
  return message.op === "eval" ? `E${message.id}:${message.code}` : message;
}

export function decodeToLane(message: ToLane | string): ToLane {
  if (typeof message !== "string") return message;
  const colon = message.indexOf(":");
  return { op: "eval", id: Number(message.slice(1, colon)), code: message.slice(colon + 1) };
}

/** Worker → main thread: a gate call and a run's outcome go as strings, the rest as they are. */
export function encodeFromLane(message: FromLane): FromLane | string {
  if (message.op === "gate")
    return `G${message.id}:${pack([message.name, JSON.stringify(message.args)])}`;
  if (message.op === "evaluated") return `V${message.id}:${encodeOutput(message.output)}`;
  return message;
}

export function decodeFromLane(message: FromLane | string): FromLane {
  if (typeof message !== "string") return message;
  const colon = message.indexOf(":");
  const id = Number(message.slice(1, colon));
  if (message[0] === "G") {
    const [name, args] = unpack(message, colon + 1) as [string, string];
    return { op: "gate", id, name, args: JSON.parse(args) as unknown[] };
  }
  return { op: "evaluated", id, output: decodeOutput(message, colon + 1) };
}

function encodeOutput(out: WireOutput): string {
  const { value, error } = out;
  const fields = [
    out.console,
    String(out.consoleDropped),
    out.stopped ?? "",
    out.crashed ? "1" : "",
    value ? "1" : "",
    value?.type ?? "",
    value?.size === undefined ? "" : String(value.size),
    value ? String(value.chars) : "",
    value?.text ?? "",
    error ? "1" : "",
    error?.name ?? "",
    error?.message ?? "",
    error?.stack ?? "",
  ];
  return pack(fields);
}

function decodeOutput(text: string, from: number): WireOutput {
  const f = unpack(text, from);
  const [log, dropped, stopped, crashed, hasValue, type, size, chars, valueText, hasError] = f;
  const out: WireOutput = { console: log!, consoleDropped: Number(dropped) };
  if (hasValue) {
    out.value = { type: type!, chars: Number(chars), text: valueText! };
    if (size !== "") out.value.size = Number(size);
  }
  if (hasError) out.error = { name: f[10]!, message: f[11]!, stack: f[12]! };
  if (stopped) out.stopped = stopped as NonNullable<WireOutput["stopped"]>;
  if (crashed) out.crashed = true;
  return out;
}

/** A gate's answer as one string: a kind letter, then the value. */
export function encodeReply(reply: WireReply): string {
  if (!reply.ok) return `${reply.cancelled ? "C" : "X"}${reply.message}`;
  const stop = reply.stop ? "!" : "";
  if (reply.json !== undefined) return `${stop}j${reply.json}`;
  const v = reply.value;
  if (typeof v === "string") return `${stop}s${v}`;
  if (typeof v === "number") return `${stop}n${Object.is(v, -0) ? "-0" : String(v)}`;
  if (typeof v === "boolean") return `${stop}b${v ? 1 : 0}`;
  return `${stop}${v === null ? "z" : "u"}`;
}

export function decodeReply(text: string): WireReply {
  const kind = text[0];
  if (kind === "C") return { ok: false, message: text.slice(1), cancelled: true };
  if (kind === "X") return { ok: false, message: text.slice(1) };
  const stop = kind === "!";
  const at = stop ? 1 : 0;
  const rest = text.slice(at + 1);
  let out: WireReply;
  switch (text[at]) {
    case "j":
      out = { ok: true, json: rest };
      break;
    case "s":
      out = { ok: true, value: rest };
      break;
    case "n":
      out = { ok: true, value: Number(rest) };
      break;
    case "b":
      out = { ok: true, value: rest === "1" };
      break;
    case "z":
      out = { ok: true, value: null };
      break;
    default:
      out = { ok: true };
  }
  if (stop) out.stop = true;
  return out;
}
