#!/usr/bin/env node
// A loopback OpenAI-wire server in its own process, for `spell eval` tests and the eval bench.
// argv[2] is JSON:
//   correct: { "<intent text>": n } — the first n requests of a cast with that intent are
//            answered right (the sum), the later ones wrong (the sum + 1); default: all right.
//            Counted per intent, so the pass rates do not depend on the order casts run in.
//   rateLimit: [request numbers] answered 429 with Retry-After: 1 (1-based, over all requests)
//   retryAfter: the seconds the 429's Retry-After says (default 1)
//   dieAt: request number at which the process exits (a provider that dies)
//   judge: the text a judge (system prompt "You grade…") is answered with
//   turns: replies per cast (default 1): the first turns-1 call the `echo` gate, the last answers
//   delayMs: wait before each answer
//   bash: [commands] — for a bash-medium cast: its n-th reply calls the `bash` tool with the
//         n-th command (counted by the tool results the request carries), e.g. ["sleep 5", "done 3"]
//   hold: [request numbers] never answered (a call a worker is killed or frozen in); on its
//         arrival the server prints "HELD <n>" on stdout (an event a test waits on);
//         GET /release answers every held call then (to a worker frozen meanwhile)
//   delegate: true — a request that offers the call_entity gate and carries no tool result yet
//            calls call_entity with its own intent (a parent); the child's requests, which do
//            not offer it, are answered as above, and so is the parent's next one
// Prints "PORT <n>" on stdout when listening; "STATS <json>" on SIGTERM is not needed: counts
// are served at GET /stats, and each request's arrival time (and whether it got a 429) at GET /log.
import { createServer } from "node:http";
import { setTimeout } from "node:timers";

const config = JSON.parse(process.argv[2] ?? "{}");
const seen = new Map();
let requests = 0;
let rateLimited = 0;
// When each request arrived (epoch ms) and whether it was answered 429: GET /log.
const log = [];
// The answers of held calls (config.hold), sent on GET /release.
const held = [];

const completion = (message) => ({
  id: `chatcmpl-${requests}`,
  object: "chat.completion",
  model: "wire-model",
  choices: [
    {
      index: 0,
      finish_reason: message.tool_calls ? "tool_calls" : "stop",
      message: { role: "assistant", content: null, ...message },
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

function answer(body) {
  const messages = body.messages ?? [];
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  if (typeof system === "string" && system.startsWith("You grade"))
    return completion({ content: config.judge ?? '{"pass": true, "score": 1, "reason": "fine"}' });
  const user = messages.find((m) => m.role === "user");
  const intent = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
  const tools = messages.filter((m) => m.role === "tool").length;
  const offersDelegation = (body.tools ?? []).some((t) => t.function?.name === "call_entity");
  if (config.delegate && offersDelegation && tools === 0)
    return completion({
      tool_calls: [
        {
          id: `call_${requests}`,
          type: "function",
          function: { name: "call_entity", arguments: JSON.stringify({ intent }) },
        },
      ],
    });
  if (config.bash)
    return completion({
      tool_calls: [
        {
          id: `call_${requests}`,
          type: "function",
          function: {
            name: "bash",
            arguments: JSON.stringify({
              command: config.bash[Math.min(tools, config.bash.length - 1)],
            }),
          },
        },
      ],
    });
  const turns = config.turns ?? 1;
  if (tools < turns - 1)
    return completion({
      tool_calls: [
        {
          id: `call_${requests}`,
          type: "function",
          function: { name: "echo", arguments: '{"text":"hi"}' },
        },
      ],
    });
  const m = /(\d+)\s*\+\s*(\d+)/.exec(intent ?? "");
  const sum = m ? Number(m[1]) + Number(m[2]) : 0;
  const n = (seen.get(intent) ?? 0) + 1;
  seen.set(intent, n);
  const right = config.correct?.[intent] ?? Infinity;
  return completion({ content: String(n <= right ? sum : sum + 1) });
}

/** A reply as an SSE stream (a cast someone observes asks for one): the message, then its end. */
function streamed(res, reply) {
  const [{ message, finish_reason }] = reply.choices;
  const head = { id: reply.id, object: "chat.completion.chunk", model: reply.model };
  const chunk = (choices, extra = {}) =>
    `data: ${JSON.stringify({ ...head, choices, ...extra })}\n\n`;
  const calls = (message.tool_calls ?? []).map((c, index) => ({ index, ...c }));
  const delta = { role: "assistant", ...(message.content ? { content: message.content } : {}) };
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(
    chunk([{ index: 0, delta: { ...delta, ...(calls.length ? { tool_calls: calls } : {}) } }]),
  );
  res.write(chunk([{ index: 0, delta: {}, finish_reason }], { usage: reply.usage }));
  res.end("data: [DONE]\n\n");
}

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify({ requests, rateLimited }));
  }
  if (req.method === "GET" && req.url === "/release") {
    for (const send of held.splice(0)) send();
    return res.end("released");
  }
  if (req.method === "GET" && req.url === "/log") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify(log));
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    requests++;
    if (config.dieAt !== undefined && requests >= config.dieAt) process.exit(1);
    const limited = config.rateLimit?.includes(requests) === true;
    log.push({ at: Date.now(), limited });
    if (limited) {
      rateLimited++;
      res.writeHead(429, {
        "content-type": "application/json",
        "retry-after": String(config.retryAfter ?? 1),
      });
      return res.end(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }));
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const reply = answer(body);
    const send = () => {
      if (body.stream) return streamed(res, reply);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply));
    };
    if (config.hold?.includes(requests) === true) {
      held.push(send);
      return console.log(`HELD ${requests}`);
    }
    if (config.delayMs) setTimeout(send, config.delayMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log(`PORT ${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
