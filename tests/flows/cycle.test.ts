import { describe, expect, it } from "vitest";
import { Flow, FlowRunner, move, stay, test as testEvent } from "../../src/flows/index.js";
import type { Action, FlowEvent, ReceiverInput } from "../../src/flows/index.js";

const run = async (flow: Flow, ...messages: unknown[]) => {
  const runner = new FlowRunner(flow);
  const traces = [];
  for (const m of messages) traces.push((await runner.cycle(m)).trace);
  return { runner, traces };
};

describe("hooks (§6.1)", () => {
  it("run in ascending priority-tuple order, each transforming the payload", async () => {
    const order: string[] = [];
    const flow = new Flow()
      .hook("receive", (p) => (order.push("b"), `${String(p)}b`), { priority: [1, 0] })
      .hook("receive", (p) => (order.push("a"), `${String(p)}a`), { priority: [0, 5] })
      .hook("receive", (p) => (order.push("c"), `${String(p)}c`), { priority: [1] })
      .hook("receive", (p) => (order.push("d"), `${String(p)}d`), { priority: [1, 0, 0] })
      .receive("--> x", (i) => (order.push(String(i.payload)), stay()));
    await run(flow, "m");
    // [0,5] < [1] < [1,0] < [1,0,0]: a prefix comes first
    expect(order).toEqual(["a", "c", "b", "d", "macbd"]);
  });

  it("equal priorities keep registration order (deterministic)", async () => {
    const order: number[] = [];
    const flow = new Flow();
    for (const n of [3, 1, 2]) flow.hook("receive", (p) => (order.push(n), p), { priority: [0] });
    await run(flow, {}, {});
    expect(order).toEqual([3, 1, 2, 3, 1, 2]);
  });

  it("a receive hook returning null drops the message: no receiver runs, the tape stays", async () => {
    let later = false;
    let ran = false;
    const flow = new Flow({ tape: { shape: "many", initial: ["a"] } })
      .hook(
        "receive",
        function reject() {
          return null;
        },
        { priority: [0] },
      )
      .hook("receive", (p) => ((later = true), p), { priority: [1] })
      .receive("a --> b", () => ((ran = true), move()));
    const { runner, traces } = await run(flow, { x: 1 });
    expect(traces[0]!.dropped).toEqual({ by: "receive_hook", at: "reject" });
    expect(ran).toBe(false);
    expect(later).toBe(false);
    expect(runner.tapeValue()).toEqual(["a"]);
  });

  it("undefined drops like null; a throwing hook drops with its error (fail closed)", async () => {
    const flow = new Flow().hook("receive", (p) => ((p as { n: number }).n === 1 ? undefined : p));
    flow.hook(
      "receive",
      (p) => {
        if ((p as { n: number }).n === 2) throw new Error("bad input");
        return p;
      },
      { priority: [1] },
    );
    const { traces } = await run(flow, { n: 1 }, { n: 2 }, { n: 3 });
    expect(traces[0]!.dropped?.by).toBe("receive_hook");
    expect(traces[1]!.dropped).toMatchObject({ by: "receive_hook", error: "bad input" });
    expect(traces[2]!.dropped).toBeUndefined();
  });

  it("a send hook returning null drops that emission only", async () => {
    const flow = new Flow()
      .receive("--> a", () => move("go"))
      .send("a", () => ({ n: 1 }), { priority: [0] })
      .send("a", () => ({ n: 2 }), { priority: [1] })
      .hook("send", (p) => ((p as { n: number }).n === 1 ? null : p));
    const { traces } = await run(flow, "m");
    expect(traces[0]!.emissions.map((e) => e.payload)).toEqual([{ n: 2 }]);
    expect(traces[0]!.drops).toEqual([{ by: "send_hook", at: "anonymous", key: null }]);
  });
});

describe("receivers (§6.2)", () => {
  it("are eligible when any source gate accepts a tape state, ordered by priority, route, key, state", async () => {
    const seen: string[] = [];
    const rec = (i: ReceiverInput): FlowEvent => (
      seen.push(`${i.route}|${i.key}|${i.state}`),
      testEvent()
    );
    const flow = new Flow({
      tape: { shape: "index-many", initial: { bob: ["b", "a"], alice: ["c", "a"] } },
    })
      .receive("z, a --> q", rec, { priority: [1] })
      .receive("a, b", rec, { priority: [1] })
      .receive("/not(a)", rec, { priority: [0] })
      .receive("nothing --> q", rec);
    await run(flow, "m");
    expect(seen).toEqual([
      "/not(a)|alice|c",
      "/not(a)|bob|b",
      "a, b|alice|a",
      "a, b|bob|a",
      "a, b|bob|b",
      "z, a --[]--> q|alice|a",
      "z, a --[]--> q|bob|a",
    ]);
  });

  it("an initial arrow route runs exactly once per cycle, whatever the tape holds", async () => {
    const counts: number[] = [];
    let n = 0;
    const flow = new Flow({ tape: { shape: "index-many", initial: { a: ["x", "y"], b: ["x"] } } })
      .receive("--[ hello ]--> x", () => (n++, stay()))
      .hook("receive", (p) => (counts.push(n), p));
    await run(flow, 1, 2, 3);
    expect(n).toBe(3);
    expect(counts).toEqual([0, 1, 2]);
  });

  it("an initial route's activations go to the entry key on an indexed tape", async () => {
    const flow = new Flow({ tape: { shape: "index-many", entryKey: "main" } }).receive(
      "--[ hi ]--> ready",
      () => move(),
    );
    const { runner, traces } = await run(flow, "m");
    expect(runner.tapeValue()).toEqual({ main: ["hi", "ready"] });
    expect(traces[0]!.receivers).toEqual([
      { route: "--[hi]--> ready", key: "main", state: null, action: "MOVE", trigger: null },
    ]);
  });

  it("a receiver that throws or returns a non-event is traced with its error and activates nothing", async () => {
    const flow = new Flow({ tape: { shape: "many", initial: ["a"] } })
      .receive("a --> b", () => {
        throw new Error("boom");
      })
      .receive("a --> c", () => ({ action: "JUMP" }) as unknown as FlowEvent)
      .receive("a --> d", () => null);
    const { runner, traces } = await run(flow, "m");
    const [first, second, ...rest] = traces[0]!.receivers;
    expect(first).toEqual({ route: "a --[]--> b", key: null, state: "a", error: "boom" });
    expect(second?.route).toBe("a --[]--> c");
    expect(second?.error).toContain("TEST, STAY or MOVE");
    expect(rest).toEqual([]);
    expect(runner.tapeValue()).toEqual(["a"]);
  });
});

describe("activation (§6.3 table)", () => {
  const cases: [string, string, Action, string[]][] = [
    ["object", "a", "TEST", []],
    ["object", "a", "STAY", ["a"]],
    ["object", "a", "MOVE", ["a"]],
    ["arrow", "a --[ l ]--> t", "TEST", ["l"]],
    ["arrow", "a --[ l ]--> t", "STAY", ["a"]],
    ["arrow", "a --[ l ]--> t", "MOVE", ["l", "t"]],
  ];
  it.each(cases)(
    "%s route %j, %s → the state is replaced by %j",
    async (_k, route, action, want) => {
      const flow = new Flow({
        tape: { shape: "index-many", initial: { k: ["a", "other"] } },
      }).receive(route, () => ({ action, trigger: null }));
      const { runner, traces } = await run(flow, "m");
      expect(runner.tapeValue()).toEqual({ k: ["other", ...want] });
      const removed = want.includes("a") ? [] : ["a"];
      const added = want.filter((n) => n !== "a");
      expect(traces[0]!.tape).toEqual(
        added.length || removed.length ? [{ key: "k", added, removed }] : [],
      );
    },
  );

  it("activates into the same key that provided eligibility; untouched keys stay", async () => {
    const flow = new Flow({
      tape: { shape: "index-single", initial: { alice: "idle", bob: "busy" } },
    }).receive("idle --> talking", () => move());
    const { runner, traces } = await run(flow, "m");
    expect(runner.tapeValue()).toEqual({ alice: "talking", bob: "busy" });
    expect(traces[0]!.tape).toEqual([{ key: "alice", added: ["talking"], removed: ["idle"] }]);
  });

  it("single tapes keep the last activated node; many tapes keep them all, once", async () => {
    const route = "a --[ l ]--> t";
    const single = new Flow({ tape: { shape: "single", initial: "a" } }).receive(route, () =>
      move(),
    );
    expect((await run(single, "m")).runner.tapeValue()).toBe("t");
    const many = new Flow({ tape: { shape: "many", initial: ["a"] } })
      .receive(route, () => move())
      .receive("a --[ l ]--> u", () => move());
    expect((await run(many, "m")).runner.tapeValue()).toEqual(["l", "t", "u"]);
  });

  it("is deterministic: the same messages give the same deltas and actions", async () => {
    const make = () =>
      new Flow({ tape: { shape: "index-many", initial: { x: ["a"], y: ["a", "b"] } } })
        .receive("a --> b", (i) => (String(i.payload) === "1" ? move("one") : stay()))
        .receive("b --[ c ]--> a", () => testEvent("t"))
        .receive("/all", (i) => (i.key === "y" ? stay() : null));
    const a = await run(make(), 1, 2, 1, 1);
    const b = await run(make(), 1, 2, 1, 1);
    expect(a.traces).toEqual(b.traces);
    expect(a.traces.some((t) => t.tape.length > 0)).toBe(true);
  });
});
