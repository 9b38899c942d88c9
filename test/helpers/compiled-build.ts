import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** What `npm run build` writes and `npm run start:prod` runs: the compiled server and CLI. */
export const COMPILED = {
  server: path.join(ROOT, 'dist/server/main.js'),
  cli: path.join(ROOT, 'dist/server/cli/main.js'),
};

/** package.json's build script, run as npm runs it (node_modules/.bin first on PATH) without npm's own start-up. */
function buildCommand(): string {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return scripts.build!;
}

/**
 * globalSetup: `npm run build`, once per run (esbuild, about a second; `npm start` runs the same
 * build when sources changed). The tests that start servers and CLIs run this JavaScript, as a
 * deployment does: each start skips the TypeScript loader. The build emits even with a type error
 * (`npm run typecheck` is where those fail); only missing output stops the run.
 */
export function buildCompiled(): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NODE_OPTIONS: '', PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}` };
    const build = spawn(buildCommand(), { cwd: ROOT, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    build.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    build.on('error', reject);
    build.on('exit', (code) => {
      const missing = Object.values(COMPILED).filter((file) => !fs.existsSync(file));
      if (missing.length === 0) return resolve();
      reject(new Error(`npm run build (exit ${code}) did not write ${missing.join(', ')}:\n${output}`));
    });
  });
}
