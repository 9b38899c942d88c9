// Preloaded (`node -r`) by a test: on exit, writes to stderr which heavy parts of the app the
// process loaded, as one `loaded: {...}` JSON line.
process.on('exit', () => {
  const files = Object.keys(require.cache);
  const loaded = (pattern) => files.some((file) => pattern.test(file));
  const report = {
    knex: loaded(/[\\/]node_modules[\\/]knex[\\/]/),
    pglite: loaded(/[\\/]node_modules[\\/]@electric-sql[\\/]pglite[\\/]/),
    commands: loaded(/[\\/]cli[\\/]run-cli\.(js|ts)$/),
  };
  process.stderr.write(`loaded: ${JSON.stringify(report)}\n`);
});
