/**
 * The seccomp filter bubblewrap installs before a command runs (`--seccomp FD`): no file the
 * command makes may carry a set-user-ID or set-group-ID bit (issue 38). Inside the sandbox the
 * command is uid 1000, but outside it is the user running Spellbook: without this filter a
 * command run by root could `chmod 6755` a copy of bash in a writable root, and any host user
 * would then run it as root. The bits are refused where they are asked for, so no such file ever
 * exists, not even for a moment — the rules of systemd's RestrictSUIDSGID=:
 * - chmod, fchmod, fchmodat, fchmodat2 with S_ISUID or S_ISGID in the mode: EPERM;
 * - open, openat, creat (O_CREAT or O_TMPFILE), mkdir, mkdirat, mknod, mknodat with them: EPERM;
 * - openat2 (its mode is behind a pointer a filter cannot read) and io_uring (whose openat a
 *   filter never sees): ENOSYS, so callers fall back to openat;
 * - another ABI (x86's 32-bit `int 0x80`, x32) could reach the same calls under other numbers:
 *   a 32-bit call kills the process, an x32 call is ENOSYS.
 * A classic BPF program, assembled here: x86-64 and arm64 only (the walls are refused elsewhere).
 */

const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const SET_ID = S_ISUID | S_ISGID;
/** O_CREAT and __O_TMPFILE: the flags under which open's mode is used (same on x86-64 and arm64). */
const CREATES = 0o100 | 0o20000000;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** BPF opcodes (linux/bpf_common.h). */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (the low half: little-endian). */
const NR = 0;
const ARCH = 4;
const arg = (i: number): number => 16 + 8 * i;

/** A call checked for set-id bits: its mode argument, and its flags argument when it opens. */
interface ModeCall {
  nr: number;
  mode: number;
  flags?: number;
}

interface Abi {
  /** AUDIT_ARCH_* of the native ABI. */
  arch: number;
  /** Numbers at or above this are another ABI under the same arch (x32). */
  foreignFrom?: number;
  modeCalls: ModeCall[];
  /** Calls refused outright with ENOSYS. */
  refused: number[];
}

const IO_URING = [425, 426, 427];
const OPENAT2 = 437;
const FCHMODAT2 = 452;

const ABIS: Readonly<Record<string, Abi>> = {
  x64: {
    arch: 0xc000003e,
    foreignFrom: 0x40000000,
    modeCalls: [
      { nr: 90, mode: 1 }, // chmod
      { nr: 91, mode: 1 }, // fchmod
      { nr: 268, mode: 2 }, // fchmodat
      { nr: FCHMODAT2, mode: 2 },
      { nr: 2, flags: 1, mode: 2 }, // open
      { nr: 257, flags: 2, mode: 3 }, // openat
      { nr: 85, mode: 1 }, // creat
      { nr: 83, mode: 1 }, // mkdir
      { nr: 258, mode: 2 }, // mkdirat
      { nr: 133, mode: 1 }, // mknod
      { nr: 259, mode: 2 }, // mknodat
    ],
    refused: [OPENAT2, ...IO_URING],
  },
  arm64: {
    arch: 0xc00000b7,
    modeCalls: [
      { nr: 52, mode: 1 }, // fchmod
      { nr: 53, mode: 2 }, // fchmodat
      { nr: FCHMODAT2, mode: 2 },
      { nr: 56, flags: 2, mode: 3 }, // openat
      { nr: 34, mode: 2 }, // mkdirat
      { nr: 33, mode: 2 }, // mknodat
    ],
    refused: [OPENAT2, ...IO_URING],
  },
};

/** An instruction whose jumps name labels; `assemble` turns them into offsets. */
type Ins = { code: number; k: number; jt?: string; jf?: string } | { label: string };

const ALLOW = "allow";
const DENY = "deny";
const NOSYS = "nosys";

function program(abi: Abi): Ins[] {
  const p: Ins[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: abi.arch, jt: "native", jf: "foreign" },
    { label: "foreign" },
    { code: RET_K, k: RET_KILL_PROCESS },
    { label: "native" },
    { code: LD_W_ABS, k: NR },
  ];
  if (abi.foreignFrom !== undefined)
    p.push({ code: JGE_K, k: abi.foreignFrom, jt: NOSYS, jf: "calls" }, { label: "calls" });
  // A jump without `jf` goes on to the next instruction when false.
  for (const nr of abi.refused) p.push({ code: JEQ_K, k: nr, jt: NOSYS });
  abi.modeCalls.forEach((c, i) => p.push({ code: JEQ_K, k: c.nr, jt: `call${i}` }));
  p.push({ code: RET_K, k: RET_ALLOW });
  abi.modeCalls.forEach((c, i) => {
    p.push({ label: `call${i}` });
    if (c.flags !== undefined)
      p.push(
        { code: LD_W_ABS, k: arg(c.flags) },
        { code: JSET_K, k: CREATES, jt: `mode${i}`, jf: ALLOW },
        { label: `mode${i}` },
      );
    p.push({ code: LD_W_ABS, k: arg(c.mode) }, { code: JSET_K, k: SET_ID, jt: DENY, jf: ALLOW });
  });
  p.push(
    { label: ALLOW },
    { code: RET_K, k: RET_ALLOW },
    { label: DENY },
    { code: RET_K, k: RET_ERRNO | EPERM },
    { label: NOSYS },
    { code: RET_K, k: RET_ERRNO | ENOSYS },
  );
  return p;
}

/** struct sock_filter[] in the host's byte order: u16 code, u8 jt, u8 jf, u32 k. */
function assemble(p: readonly Ins[]): Buffer {
  const at = new Map<string, number>();
  const code: { code: number; k: number; jt?: string; jf?: string }[] = [];
  for (const ins of p) {
    if ("label" in ins) at.set(ins.label, code.length);
    else code.push(ins);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((ins, i) => {
    const offset = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const to = at.get(label);
      const d = to === undefined ? -1 : to - i - 1;
      if (d < 0 || d > 255) throw new Error(`seccomp: bad jump to ${label}`);
      return d;
    };
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(offset(ins.jt), i * 8 + 2);
    out.writeUInt8(offset(ins.jf), i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}

let compiled: Buffer | null | undefined;

/** The filter for this CPU, or undefined where there is none (the sandbox is refused there). */
export function setIdFilter(): Buffer | undefined {
  if (compiled === undefined) {
    const abi = ABIS[process.arch];
    compiled = abi && process.platform === "linux" ? assemble(program(abi)) : null;
  }
  return compiled ?? undefined;
}
