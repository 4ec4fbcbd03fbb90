// Reports, at exit, every CommonJS module the process loaded (the bundled CLI and what it
// requires from node_modules): used with trace-loader.mjs to prove `spell --help` stays light.
process.on("exit", () => {
  for (const file of Object.keys(require.cache)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    process.stderr.write(`LOADED ${m ? m[1] : file}\n`);
  }
});
