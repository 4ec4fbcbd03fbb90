/**
 * The wards of a flow (seed 003 §9: limits for message size, handler runtime and tape growth).
 * Numbers, composed by min like every ward (WARD-1): a flow can only tighten them.
 */
import { ConfigError } from "../core/errors.js";
import { ownEntry } from "../core/own.js";

export interface FlowLimits {
  /** Bytes of a message's JSON, inbound or outbound; a larger one is dropped. Default 1 MiB. */
  maxMessageBytes: number;
  /** Milliseconds one handler (hook, receiver, sender) may take; past it, it fails. Default 10 s. */
  maxHandlerMs: number;
  /** Nodes on the whole tape; a cycle that would grow past it fails and leaves the tape as it was. Default 10 000. */
  maxTapeNodes: number;
  /** Heap of the flow's js sandbox in MiB (all its js handlers); beyond it a handler fails. Default 64. */
  maxMemoryMb: number;
}

export const DEFAULT_FLOW_LIMITS: Readonly<FlowLimits> = Object.freeze({
  maxMessageBytes: 1024 * 1024,
  maxHandlerMs: 10_000,
  maxTapeNodes: 10_000,
  maxMemoryMb: 64,
});

/** The ward names as written in a flow document, and the limit each sets. */
export const FLOW_WARDS: Readonly<Record<string, keyof FlowLimits>> = {
  max_message_bytes: "maxMessageBytes",
  max_handler_ms: "maxHandlerMs",
  max_tape_nodes: "maxTapeNodes",
  max_memory_mb: "maxMemoryMb",
};

/** Limits from wards (one-key maps), composed by min over the defaults. */
export function flowLimits(wards: readonly Readonly<Record<string, number>>[] = []): FlowLimits {
  const out: FlowLimits = { ...DEFAULT_FLOW_LIMITS };
  for (const ward of wards) {
    for (const [name, value] of Object.entries(ward)) {
      const field = ownEntry(FLOW_WARDS, name);
      if (!field)
        throw new ConfigError("unknown_ward", `unknown flow ward ${JSON.stringify(name)}`);
      if (typeof value !== "number" || !(value >= 0))
        throw new ConfigError("bad_ward_value", `ward ${name} must be a non-negative number`);
      out[field] = Math.min(out[field], value);
    }
  }
  return out;
}

/** UTF-8 bytes of a payload's JSON. */
export function messageBytes(payload: unknown): number {
  return Buffer.byteLength(JSON.stringify(payload) ?? "");
}
