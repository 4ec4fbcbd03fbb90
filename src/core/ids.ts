// Ids unique across machines without coordination (issue 27): the kind prefix, then a UUIDv7
// (RFC 9562 §5.7): 48 bits of Unix milliseconds, a 32-bit counter (RFC 9562 §6.2 method 1, the
// layout of the `uuid` package's v7) started at a random value each millisecond, and 42 random
// bits per id. Ids of one process are strictly increasing, also when the clock goes back.
//
// The random bits come from Math.random, which Node seeds from the operating system's CSPRNG
// in each process: ids must be unique, not secret. The `uuid` package itself is not imported
// here: its module loads node:crypto (~4.6 ms CPU), which a conversation cast otherwise never
// loads (ARCHITECTURE.md "Start-up", tests/cli/start.test.ts); tests/core/ids.test.ts checks
// these ids with its parser. Older looms hold ids of another shape (`ent_9440ac3018db000002`):
// nothing parses an id, so they still read.

let msecs = -Infinity;
let counter = 0;
/** The first two groups of the current millisecond's ids: "0190c1a2-3b4c-". */
let timeHex = "";

const TWO_31 = 0x80000000;
const TWO_32 = 0x100000000;
const TWO_42 = 0x40000000000;
/** Two hex digits of each byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1));

function setTime(ms: number): void {
  msecs = ms;
  const hex = ms.toString(16).padStart(12, "0");
  timeHex = `${hex.slice(0, 8)}-${hex.slice(8)}-`;
}

/** The next UUIDv7 of this process, lowercase, 8-4-4-4-12. */
function uuidV7(): string {
  const now = Date.now();
  if (now > msecs) {
    setTime(now);
    counter = Math.floor(Math.random() * TWO_31); // the top bit clear leaves room to count
  } else if (++counter >= TWO_32) {
    setTime(msecs + 1); // 2^31 ids in one millisecond at the least: borrow the next one
    counter = 0;
  }
  const c = counter;
  const random = Math.random() * TWO_42; // V8 gives 52 random bits: 42 of them
  const high = Math.floor(random / TWO_32); // 10 bits
  const low = random >>> 0;
  return (
    timeHex +
    HEX[0x70 | (c >>> 28)]! + // version 7, then the counter's 32 bits
    HEX[(c >>> 20) & 0xff]! +
    "-" +
    HEX[0x80 | ((c >>> 14) & 0x3f)]! + // variant 10
    HEX[(c >>> 6) & 0xff]! +
    "-" +
    HEX[((c & 0x3f) << 2) | (high >>> 8)]! +
    HEX[high & 0xff]! +
    HEX[low >>> 24]! +
    HEX[(low >>> 16) & 0xff]! +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]!
  );
}

/** Unique ids for entities, turns and cantrips (ENTITY-2, LOOM-2): `turn_<uuidv7>`. */
export function newId(prefix: string): string {
  return `${prefix}_${uuidV7()}`;
}

/**
 * A fresh entity id, to name a cast before it starts (`cast(intent, { resumeEntity })`): a queue
 * job or a CLI run can then continue the same cast after a crash, under the same id.
 */
export const newEntityId = (): string => newId("ent");
