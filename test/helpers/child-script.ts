import { spawn } from 'node:child_process';

/**
 * globalSetup: runs a TypeScript script of the test helpers in a process of its own, so that its
 * synchronous work (PGlite's WASM start, building a GraphQL schema) does not hold up jest's own
 * process handing test files to the workers. Rejects with the script's output. Liftoff only, as
 * for the tests' processes (test/operations/processes.ts, NODE): a script of seconds.
 */
export function runChildScript(script: string): Promise<void> {
  const child = spawn(process.execPath, ['--liftoff-only', '--import', 'tsx', script], { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited ${code}:\n${stderr}`))));
  });
}

/** The body of such a script: exit 0 when `work` is done, else print why and exit 1. */
export function runAsScript(work: () => Promise<void> | void): void {
  Promise.resolve()
    .then(work)
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
        process.exit(1);
      },
    );
}
