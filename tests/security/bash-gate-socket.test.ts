/**
 * Issue 20: the bash medium's gate socket is bounded. A command inside the sandbox speaks to the
 * host's socket directly (perl, as an attacker would, not through the gate commands): many
 * connections with large bodies must not grow the host's memory or the loom record without
 * bound. Past each limit the command reads an error; the cast goes on.
 * Every probe here talks only to the socket of the entity the test itself started.
 */
import { expect, it } from "vitest";
import type { Turn } from "../../src/loom/records/index.js";
import { castBash, noBwrap } from "../circle/bash-helpers.js";
import { needs } from "../support/needs.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * N connections at once (each its own process), each sending `echo\0` and SIZE bytes, then reading
 * the answer: one line per connection, "ok LENGTH" or "err MESSAGE".
 */
const FLOOD = `use strict;
use IO::Socket::UNIX;
my ($n, $size) = @ARGV;
my @kids;
for my $i (1 .. $n) {
  my $pid = fork();
  die "fork: $!" unless defined $pid;
  if ($pid == 0) {
    my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ENV{SPELL_GATE_SOCKET})
      or do { print "nosocket $!\\n"; exit 0 };
    binmode $s;
    print $s "echo\\0" . ("a" x $size);
    shutdown($s, 1);
    local $/;
    my $r = <$s>;
    $r = "" unless defined $r;
    if (substr($r, 0, 1) eq "1") { print "ok " . length($r) . "\\n" }
    else { my $t = substr($r, 1, 300); $t =~ s/\\n/ /g; print "err $t\\n" }
    exit 0;
  }
  push @kids, $pid;
}
waitpid($_, 0) for @kids;
print "flood over\\n";
`;

/** Opens N connections and keeps them, sending nothing; prints what the last one is answered. */
const HOLD = `use strict;
use IO::Socket::UNIX;
my ($n) = @ARGV;
my @s;
for my $i (1 .. $n) {
  push @s, IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ENV{SPELL_GATE_SOCKET})
    or die "connect $i: $!";
}
local $/;
my $last = $s[-1];
my $r = <$last>;
$r = "" unless defined $r;
print "last answered: $r\\n";
`;

/** A cast whose commands (run flood.pl, then `done "over"`) may call the echo gate. */
const castFlood = (commands: string[], wards: string) =>
  castBash({
    commands: [...commands, 'done "over"'],
    files: { "flood.pl": FLOOD },
    gates: "[done, echo]",
    wards,
  });

const recordedBytes = (turn: Turn) =>
  turn.gate_calls.reduce(
    (n, r) => n + Buffer.byteLength(r.arguments) + Buffer.byteLength(r.result),
    0,
  );

const lines = (observation: string, prefix: string) =>
  observation.split("\n").filter((l) => l.startsWith(prefix));

needs(noBwrap).describe(`the gate socket's limits (issue 20; in bubblewrap)`, () => {
  it("a request over 1 MiB is answered with an error and never reaches a gate", async () => {
    // 20 connections of 2 MB each: before, every one was echoed whole (80 MB in the loom).
    const { result, turns } = await castFlood(
      ["perl flood.pl 20 2000000"],
      "[{ max_turns: 3 }, { max_command_ms: 60000 }]",
    );
    expect(result.terminated).toBe(true);
    const observation = turns[0]!.observation;
    expect(observation).toContain("flood over");
    const errors = lines(observation, "err ");
    expect(errors).toHaveLength(20);
    for (const e of errors) expect(e).toContain("max_gate_request_kb");
    expect(turns[0]!.gate_calls).toEqual([]);
  });

  it("a flood of calls under the request limit stops at the turn's budget of 16 MiB", async () => {
    // 40 connections of 900 KB each (each under 1 MiB): before, 72 MB of records in one turn.
    const { result, turns } = await castFlood(
      ["perl flood.pl 40 900000"],
      "[{ max_turns: 3 }, { max_command_ms: 60000 }]",
    );
    expect(result.terminated).toBe(true);
    const observation = turns[0]!.observation;
    expect(observation).toContain("flood over");
    expect(lines(observation, "ok ").length + lines(observation, "err ").length).toBe(40);
    const refused = lines(observation, "err ");
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatch(/over the budget of 16777216 bytes \(max_gate_record_kb\)/);
    // Bounded: the budget, plus one short refusal record.
    expect(recordedBytes(turns[0]!)).toBeLessThanOrEqual(16 * MiB + 4 * KiB);
    expect(turns[0]!.gate_calls.filter((r) => r.is_error)).toHaveLength(1);
  });

  it("max_gate_record_kb lowers the budget; the next turn has its own", async () => {
    const { result, turns } = await castFlood(
      ["perl flood.pl 6 300000", "perl flood.pl 2 300000"],
      "[{ max_turns: 4 }, { max_gate_record_kb: 1024 }]",
    );
    expect(result.terminated).toBe(true);
    // 6 × 600 KB recorded would be 3.6 MB: only one call fits in 1 MiB.
    expect(lines(turns[0]!.observation, "ok ")).toHaveLength(1);
    expect(lines(turns[0]!.observation, "err ")).toHaveLength(5);
    expect(turns[0]!.observation).toContain("over the budget of 1048576 bytes");
    expect(recordedBytes(turns[0]!)).toBeLessThanOrEqual(MiB + 4 * KiB);
    // A new turn, a new budget: the first call fits again.
    expect(lines(turns[1]!.observation, "ok ")).toHaveLength(1);
  });

  it("connections past 8 at once wait, and past 64 waiting are refused with an error", async () => {
    // 80 connections that send nothing: 8 are served, 64 wait, the rest are refused at once.
    // Before, the last one was never answered and the command ran until max_command_ms.
    const { result, turns } = await castBash({
      commands: ["perl hold.pl 80", 'done "over"'],
      files: { "hold.pl": HOLD },
      gates: "[done, echo]",
      wards: "[{ max_turns: 3 }, { max_command_ms: 20000 }]",
    });
    expect(result.terminated).toBe(true);
    const observation = turns[0]!.observation;
    expect(observation).toContain("last answered: 0error:"); // "0": an error, on the wire
    expect(observation).toContain("max_gate_connections");
    expect(observation).not.toContain("killed after");
  });

  it("30 gate commands at once all run: past 8 they wait their turn", async () => {
    const { result, turns } = await castBash({
      commands: ['for i in $(seq 30); do gate echo "call $i" & done; wait', 'done "over"'],
      gates: "[done, echo]",
    });
    expect(result.terminated).toBe(true);
    const calls = turns[0]!.gate_calls;
    expect(calls).toHaveLength(30);
    expect(calls.every((r) => !r.is_error)).toBe(true);
    for (let i = 1; i <= 30; i++) expect(turns[0]!.observation).toContain(`call ${i}\n`);
  });
});
