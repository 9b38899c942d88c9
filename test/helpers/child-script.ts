import { spawn } from 'node:child_process';

/**
 * Node's flags for the processes tests start (servers, CLIs, these scripts). Such a process lives
 * for seconds; on the embedded database most of its CPU went to V8 compiling PGlite's WebAssembly
 * a second time, optimised, in the background (a server: 1.8 s of CPU by one second after ready,
 * 0.9 s with Liftoff only). The optimised tier pays off in a long-running server, not here; what
 * the processes do is the same.
 */
export const TEST_PROCESS_NODE_FLAGS = ['--liftoff-only'];

/**
 * globalSetup: runs a TypeScript script of the test helpers in a process of its own, so that its
 * synchronous work (PGlite's WASM start, building a GraphQL schema) does not hold up jest's own
 * process handing test files to the workers. Rejects with the script's output.
 */
export function runChildScript(script: string): Promise<void> {
  const child = spawn(process.execPath, [...TEST_PROCESS_NODE_FLAGS, '--import', 'tsx', script], { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
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
