#!/usr/bin/env node
// `npm run build` (and `npm start`, with --if-stale): the server's TypeScript compiled to dist/.
//
// esbuild transpiles each file on its own (no bundle, no type-check: `npm run typecheck` is where
// types are judged), so the whole tree builds in about a second and `npm start` can run the same
// compiled JavaScript production runs. It is a dependency, not a dev one: a production install
// (`npm ci --omit=dev`) builds with it too. Plain JavaScript, so it needs no loader to run.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const SOURCE_DIRS = ['core', 'connectors', 'server', 'migrations'];
/** Not part of the server: the Medusa plugin is its own package, built by `npm run build:medusa-plugin`. */
const EXCLUDED = path.join('connectors', 'medusa', 'plugin');
/** What else changes the output: the compiler's settings and the builder itself. */
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build-server.js'];

function sourceFiles(root, dir, found = []) {
  if (path.relative(root, dir) === EXCLUDED || !fs.existsSync(dir)) return found;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') sourceFiles(root, full, found);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) {
      found.push(full);
    }
  }
  return found;
}

/** Every source's path, size and modification time, hashed: a build is current when its stamp holds the same. */
function fingerprint(root, files) {
  const hash = crypto.createHash('sha256');
  for (const file of [...files, ...INPUTS.map((name) => path.join(root, name))].sort()) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    hash.update(`${path.relative(root, file)}\0${stat ? `${stat.size}:${stat.mtimeMs}` : 'absent'}\n`);
  }
  return hash.digest('hex');
}

function isCurrent(out, print) {
  try {
    return fs.readFileSync(path.join(out, '.build-stamp'), 'utf8') === print;
  } catch {
    return false;
  }
}

/** One builder at a time (two `npm start`s at once): mkdir is atomic; a lock older than a minute was left by a crash. */
function withLock(out, work) {
  const LOCK = path.join(out, '.building');
  fs.mkdirSync(out, { recursive: true });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000 || Date.now() > deadline) fs.rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    return work();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds `root`'s server into `root`/dist; with `ifStale`, only when a source changed since the last build. */
function build({ ifStale = false, root = path.resolve(__dirname, '..') } = {}) {
  const out = path.join(root, 'dist');
  const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(root, path.join(root, dir)));
  if (ifStale && isCurrent(out, fingerprint(root, files))) return { built: false, files: files.length };
  return withLock(out, () => {
    const print = fingerprint(root, files);
    if (ifStale && isCurrent(out, print)) return { built: false, files: files.length }; // another start built it meanwhile
    const started = Date.now();
    // A whole rebuild: no output is left behind by a source that was removed or renamed. The stamp
    // goes first, so a build cut short is never taken for a current one.
    fs.rmSync(path.join(out, '.build-stamp'), { force: true });
    for (const dir of SOURCE_DIRS) fs.rmSync(path.join(out, dir), { recursive: true, force: true });
    require('esbuild').buildSync({
      entryPoints: files,
      outdir: out,
      outbase: root,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      tsconfig: path.join(root, 'tsconfig.build.json'),
      logLevel: 'warning',
    });
    fs.writeFileSync(path.join(out, '.build-stamp'), print);
    return { built: true, files: files.length, ms: Date.now() - started };
  });
}

if (require.main === module) {
  const ifStale = process.argv.includes('--if-stale');
  const result = build({ ifStale });
  // `npm start` says so only when it built; `npm run build` always.
  if (result.built) process.stderr.write(`built ${result.files} files into dist/ in ${result.ms} ms\n`);
}

module.exports = { build };
