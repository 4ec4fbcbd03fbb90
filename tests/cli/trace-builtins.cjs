// Reports, at exit, every Node built-in module the process loaded after its own start-up (used
// to prove `spell run` of a conversation spell stays light: ARCHITECTURE.md "Start-up").
const before = new Set(process.moduleLoadList);
// Listed first among the exit listeners, before anything is written (trace-require.cjs's lines
// too): writing to stderr opens its stream, which loads more.
process.prependListener("exit", () => {
  const loaded = process.moduleLoadList.filter(
    (m) => !before.has(m) && m.startsWith("NativeModule "),
  );
  for (const m of loaded) process.stderr.write(`BUILTIN ${m.slice("NativeModule ".length)}\n`);
});
