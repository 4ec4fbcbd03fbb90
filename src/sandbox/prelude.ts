/**
 * JavaScript evaluated once inside each sandbox, before any code of the entity. It is a function
 * of the host bridge and returns the helpers the host keeps handles to; `install` then turns a
 * circle's gates into functions. Everything it needs is
 * captured up front, so code that later tampers with JSON or prototypes only breaks its own
 * output — the host receives nothing but strings and numbers from the sandbox.
 *
 * - gates become plain global functions: arguments cross as one JSON string (or, when there are
 *   none or one string, as they are), the result comes back as a value (objects through `parse`),
 *   a gate error is thrown as an Error the code may catch;
 * - console.log/info/warn/error/debug print through the host;
 * - describe(value) and describeError(error) render values for the viewport (§4.6);
 * - define(name, json) injects a variable (circle state, a child's context);
 * - `loom` (LOOM-11) is a read-only view of the entity's thread: a getter that asks the host for
 *   the turns it has not seen yet, the first time it is read in a run (nothing is sent otherwise),
 *   and hands out deeply frozen plain data.
 */
export const PRELUDE = String.raw`(function (hostCall, hostPrint, hostLoom) {
  "use strict";
  const G = globalThis;
  const stringify = JSON.stringify, parse = JSON.parse, apply = Reflect.apply;
  const keys = Object.keys, isArray = Array.isArray, define = Object.defineProperty;
  const freeze = Object.freeze;
  const objectTag = Object.prototype.toString, slice = String.prototype.slice;
  const S = String, ErrorCtor = Error, MapCtor = Map, SetCtor = Set, WeakSetCtor = WeakSet;

  const tag = (v) => apply(slice, apply(objectTag, v, []), [8, -1]);

  // JSON.stringify recurses on the host's native stack, which runs out (a crash of the whole
  // lane) before QuickJS's own stack check fires: values nested deeper than MAX_DEPTH are never
  // given to it. The walk is iterative and gives up (not too deep) after MAX_NODES objects.
  const MAX_DEPTH = 1000, MAX_NODES = 100000;
  const TOO_DEEP = "[a value nested deeper than " + MAX_DEPTH + " levels]";
  const tooDeep = (v) => {
    if (v === null || typeof v !== "object") return false;
    const todo = [v], depth = [1];
    for (let n = 0; todo.length && n < MAX_NODES; n++) {
      const o = todo.pop(), d = depth.pop();
      if (d > MAX_DEPTH) return true;
      const items = isArray(o) ? o : keys(o).map((k) => o[k]);
      for (let i = 0; i < items.length; i++) {
        const x = items[i];
        if (x !== null && typeof x === "object") { todo[todo.length] = x; depth[depth.length] = d + 1; }
      }
    }
    return false;
  };

  const replacer = () => {
    const seen = new WeakSetCtor();
    return function (key, v) {
      if (typeof v === "bigint") return S(v) + "n";
      if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
      if (typeof v === "symbol") return S(v.description === undefined ? "Symbol()" : "Symbol(" + v.description + ")");
      if (v === undefined) return "[undefined]";
      if (v !== null && typeof v === "object") {
        if (seen.has(v)) return "[Circular]";
        seen.add(v);
        if (v instanceof MapCtor) { const o = {}; v.forEach((val, k) => { o[S(k)] = val; }); return o; }
        if (v instanceof SetCtor) { const a = []; v.forEach((val) => { a[a.length] = val; }); return a; }
        if (v instanceof ErrorCtor) return S(v.name) + ": " + S(v.message);
      }
      return v;
    };
  };

  const inspect = (v) => {
    try {
      if (v === undefined) return "undefined";
      if (typeof v === "string") return v;
      if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
      if (typeof v === "bigint") return S(v) + "n";
      if (typeof v === "symbol") return S(v.description === undefined ? "Symbol()" : "Symbol(" + v.description + ")");
      if (v instanceof ErrorCtor) return S(v.name) + ": " + S(v.message);
      if (tooDeep(v)) return TOO_DEEP;
      const text = stringify(v, replacer());
      return text === undefined ? S(v) : text;
    } catch (e) {
      return "[unprintable value]";
    }
  };

  const makeGate = (name, target) => {
    const gate = function (...args) {
      // JSON.stringify is most of the sandbox's cost of a call: the common calls, without
      // arguments or with one string, skip it (the host checks the string came out whole).
      if (args.length === 0) return hostCall(target);
      const only = args[0];
      if (args.length === 1 && typeof only === "string") return hostCall(target, only, only.length);
      if (tooDeep(args)) throw new ErrorCtor(name + ": arguments nested deeper than " + MAX_DEPTH + " levels");
      return hostCall(target, stringify(args));
    };
    define(gate, "name", { value: name });
    return gate;
  };
  // LOOM-11: turns are appended to a thread, never changed: only the new ones cross.
  const deepFreeze = (v) => {
    const todo = [v];
    while (todo.length) {
      const o = todo.pop();
      freeze(o);
      const ks = keys(o);
      for (let i = 0; i < ks.length; i++) {
        const x = o[ks[i]];
        if (x !== null && typeof x === "object") todo[todo.length] = x;
      }
    }
    return v;
  };
  let loomTurns = [], loomView = freeze({ turns: freeze([]), folded_summary: null });
  const readLoom = function () {
    const fresh = hostLoom(loomTurns.length);
    if (typeof fresh === "string") {
      const got = parse(fresh);
      const turns = [];
      for (let i = 0; i < loomTurns.length; i++) turns[i] = loomTurns[i];
      for (let i = 0; i < got.turns.length; i++) turns[turns.length] = deepFreeze(got.turns[i]);
      loomTurns = freeze(turns);
      loomView = freeze({ turns: loomTurns, folded_summary: got.folded_summary });
    }
    return loomView;
  };

  const put = (name, value) => define(G, name, { value, writable: true, configurable: true, enumerable: false });
  const install = (setup) => {
    const config = parse(setup);
    // A gate function passes the host its gate's index (in gates, or given for an alias).
    for (let i = 0; i < config.gates.length; i++) put(config.gates[i], makeGate(config.gates[i], i));
    for (const name of keys(config.aliases)) put(name, makeGate(name, config.aliases[name]));
    for (const name of keys(config.warded)) {
      const message = config.warded[name];
      put(name, function () { throw new ErrorCtor(message); });
    }
    // Not configurable: code can neither redefine nor shadow it (a top-level let is a SyntaxError).
    if (config.loom) define(G, "loom", { get: readLoom, enumerable: false, configurable: false });
  };

  const print = (level) => function (...args) {
    let line = "";
    for (let i = 0; i < args.length; i++) line += (i ? " " : "") + inspect(args[i]);
    hostPrint(level, line);
  };
  put("console", { log: print("log"), info: print("info"), warn: print("warn"), error: print("error"), debug: print("debug") });

  const describe = (v, limit) => {
    let type = v === null ? "null" : typeof v;
    let size;
    if (type === "object") {
      if (isArray(v)) { type = "array"; size = v.length; }
      else {
        const t = tag(v);
        type = t === "Object" ? "object" : t;
        if (v instanceof MapCtor || v instanceof SetCtor) size = v.size;
        else if (type === "object") size = keys(v).length;
      }
    } else if (type === "string") size = v.length;
    let text;
    if (type === "string") text = stringify(v);
    else if (type === "object" || type === "array") {
      // Plain JSON when it can say everything (the common case, and native speed).
      if (tooDeep(v)) text = TOO_DEEP;
      else try { text = stringify(v); } catch (e) { text = undefined; }
      if (text === undefined) text = inspect(v);
    } else text = inspect(v);
    return stringify({ type, size, chars: text.length, text: text.length > limit ? apply(slice, text, [0, limit]) : text });
  };

  const describeError = (e) => {
    if (e instanceof ErrorCtor) return stringify({ name: S(e.name), message: S(e.message), stack: S(e.stack || "") });
    return stringify({ name: "Thrown", message: inspect(e), stack: "" });
  };

  const defineVariable = (name, json) => { put(name, parse(json)); };

  const quote = (text) => stringify(text); // a string primitive: no toJSON of the entity can run

  return {
    install, describe, describeError, define: defineVariable, parse: (json) => parse(json), quote,
  };
})`;
