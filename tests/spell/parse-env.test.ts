import { afterEach, describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpellText } from "../../src/spell/index.js";

// The YAML library looks at process.env.LOG_TOKENS once per token it parses. process.env is
// not a plain object: every look is a call into the C++ side (about a quarter of parsing a
// 1 MiB spell, bench/loader.bench.mjs). The loader parses with a plain stand-in instead.

const HEAD = "llm: scripted\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\n";
const ITEMS = 2000;
const big = `${HEAD}intent: go\nx_extra:\n${Array.from({ length: ITEMS }, (_, i) => `  - a: ${i}\n    b: 2\n`).join("")}`;

const real = process.env;

/** process.env replaced by a Proxy that counts the looks at it; restored after each test. */
function countEnvReads(): { reads: number } {
  const counter = { reads: 0 };
  process.env = new Proxy(real, {
    get(target, key) {
      counter.reads++;
      return Reflect.get(target, key) as unknown;
    },
  });
  return counter;
}

afterEach(() => {
  process.env = real;
});

async function loadQuietly(text: string): Promise<SpellErrors | undefined> {
  try {
    await loadSpellText(text, "big.yaml", { env: {}, validateOnly: true });
    return undefined;
  } catch (err) {
    if (err instanceof SpellErrors) return err;
    throw err;
  }
}

describe("parsing a spell does not read the environment once per YAML token", () => {
  it(`reads process.env a few times for a spell of ${ITEMS * 2} lines, not thousands`, async () => {
    const counter = countEnvReads();
    const failed = await loadQuietly(big);
    expect(failed?.errors[0]?.message).toMatch(/x_extra: unknown key/);
    expect(counter.reads).toBeLessThan(20);
  });

  it("puts the process's own environment back, after a spell that loads and one that does not", async () => {
    const proxy = countEnvReads();
    const env = process.env;
    expect(proxy.reads).toBe(0);
    await loadQuietly(`${HEAD}intent: go\n`);
    expect(process.env).toBe(env);
    await loadQuietly(`${HEAD}intent: [unclosed\n`);
    expect(process.env).toBe(env);
  });

  it("still honours the YAML library's LOG_TOKENS (it prints every token when set)", async () => {
    const logged: unknown[][] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void logged.push(args);
    process.env = { ...real, LOG_TOKENS: "1" };
    try {
      await loadQuietly(`${HEAD}intent: go\n`);
    } finally {
      console.log = log;
    }
    expect(logged.some((args) => args[0] === "|")).toBe(true);
  });
});
