/**
 * The strings a code turn's messages cross the thread boundary as (src/sandbox/
 * wire.ts): every message comes back as it went, whatever its text holds.
 */
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import type { FromLane, ToLane, WireOutput, WireReply } from "../../src/sandbox/protocol.js";
import {
  decodeFromLane,
  decodeReply,
  decodeToLane,
  encodeFromLane,
  encodeReply,
  encodeToLane,
} from "../../src/sandbox/wire.js";

const AWKWARD = ["", ":", ";", "1,2;3", "a\nb\r\n", "é€😀\u0000\u2028", "12:34;5,6"];

/** Through a real port, as the lanes send them. */
function cross<T>(value: T): T {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(value);
  const got = receiveMessageOnPort(port2)!.message as T;
  port1.close();
  return got;
}

describe("the wire of a code turn", () => {
  it("a run's code crosses as a string and comes back whole", () => {
    for (const code of AWKWARD) {
      const message: ToLane = { op: "eval", id: 41, code };
      const encoded = encodeToLane(message);
      expect(typeof encoded).toBe("string");
      expect(decodeToLane(cross(encoded))).toEqual(message);
    }
    const open: ToLane = { op: "dispose", id: 3 };
    expect(decodeToLane(cross(encodeToLane(open)))).toEqual(open);
  });

  it("a gate call crosses with its name and JSON arguments", () => {
    for (const text of AWKWARD) {
      const message: FromLane = {
        op: "gate",
        id: 7,
        name: `gate${text}`,
        args: [text, 1.5, null, { nested: [text, true] }],
      };
      const encoded = encodeFromLane(message);
      expect(typeof encoded).toBe("string");
      expect(decodeFromLane(cross(encoded))).toEqual(message);
    }
  });

  it("a run's outcome crosses with every field it has, and no field it lacks", () => {
    const outputs: WireOutput[] = [
      { console: "", consoleDropped: 0 },
      { console: "log\n", consoleDropped: 3, value: { type: "number", chars: 1, text: "2" } },
      {
        console: AWKWARD.join("|"),
        consoleDropped: 0,
        value: { type: "object", size: 12, chars: 40, text: AWKWARD.join(";") },
      },
      {
        console: "",
        consoleDropped: 0,
        error: { name: "TypeError", message: "x: is ; not, a\nfunction", stack: "at <eval>:1" },
        stopped: "aborted",
      },
      {
        console: "",
        consoleDropped: 0,
        error: { name: "", message: "", stack: "" },
        stopped: "max_eval_ms",
        crashed: true,
      },
      {
        console: "",
        consoleDropped: 0,
        value: { type: "string", chars: 0, text: "" },
        stopped: "done",
      },
    ];
    for (const output of outputs) {
      const message: FromLane = { op: "evaluated", id: 9, output };
      expect(decodeFromLane(cross(encodeFromLane(message)))).toStrictEqual(message);
    }
    const other: FromLane = { op: "loom", id: 2, known: 5 };
    expect(decodeFromLane(cross(encodeFromLane(other)))).toEqual(other);
  });

  it("a gate's answer keeps its kind: text, number (-0, NaN, Infinity), boolean, null, none, JSON, errors", () => {
    const replies: WireReply[] = [
      { ok: true, value: "" },
      { ok: true, value: "n12" },
      { ok: true, value: "!j{}" },
      { ok: true, value: 0 },
      { ok: true, value: -0 },
      { ok: true, value: Number.NaN },
      { ok: true, value: -Infinity },
      { ok: true, value: 1e-300 },
      { ok: true, value: true },
      { ok: true, value: false },
      { ok: true, value: null },
      { ok: true },
      { ok: true, json: '{"a":[1,"x"]}' },
      { ok: true, value: "the end", stop: true },
      { ok: true, json: "[]", stop: true },
      { ok: false, message: "gate failed: é\n" },
      { ok: false, message: "cancelled", cancelled: true },
    ];
    for (const reply of replies) {
      const back = decodeReply(cross(encodeReply(reply)));
      expect(back).toStrictEqual(reply);
      if (reply.ok && back.ok && typeof reply.value === "number")
        expect(Object.is(back.value, reply.value)).toBe(true);
    }
  });
});
