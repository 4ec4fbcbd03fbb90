/**
 * A JSONL loom written by real casts (the PostgreSQL loom tests import it): two entities, "say
 * alpha" and "say beta", each an echo call then an answer, and a reward of 1 ("right") on the
 * 2nd turn. Returns the turn ids in order.
 */
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";

const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });

export async function recordTwoCasts(path: string, systemPrompt: string): Promise<string[]> {
  const loom = new Loom(new JsonlStore(path));
  for (const word of ["alpha", "beta"]) {
    const cantrip = new Cantrip({
      llm: new ScriptedLLM({ responses: [echo(word), { content: `${word} done` }] }),
      identity: { systemPrompt },
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 4 }] }),
      loom,
    });
    await cantrip.cast(`say ${word}`);
  }
  const turns = loom.turns().map((t) => t.id);
  loom.annotateReward(turns[1]!, 1, "right");
  loom.close();
  return turns;
}
