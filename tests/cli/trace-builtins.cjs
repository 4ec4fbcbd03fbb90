// Reports, at exit, every Node built-in module the process loaded after its own start-up (used
// to prove `spell run` of a conversation spell stays light: ARCHITECTURE.md "Start-up").
const before = new Set(process.moduleLoadList);
process.on("exit", () => {
  for (const m of process.moduleLoadList)
    if (!before.has(m) && m.startsWith("NativeModule "))
      process.stderr.write(`BUILTIN ${m.slice("NativeModule ".length)}\n`);
});
