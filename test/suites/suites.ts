import fs from 'node:fs';
import path from 'node:path';
import { closeStartedApps } from '../helpers/started-apps';

/**
 * `npm test` runs the test files in a few suites, one module registry each: loading the app
 * (~1,100 modules) once per suite instead of once per file is most of what a small file cost.
 * Each file still runs in its own describe block, with its own hooks and module state; a file
 * named on the command line runs alone (jest.config.js). README.md, *Tests*, says more. The count
 * is a multiple of jest's workers: suites of about equal time, the same number for each worker.
 */
export const SUITE_COUNT = 9;

const TEST_ROOT = path.join(__dirname, '..');
const SPEC_SECONDS: Record<string, number> = JSON.parse(fs.readFileSync(path.join(__dirname, 'spec-seconds.json'), 'utf8'));
/** A file that is not in spec-seconds.json yet counts as this many seconds. */
const NEW_FILE_SECONDS = 2;
/** Not part of `npm test`: the real Medusa store has its own install (`npm run test:medusa-app`). */
const OWN_RUN = new Set(['medusa/in-medusa-app.test.ts']);

/** Every test file under test/, as a path relative to it, in a stable order. */
export function testFiles(root = TEST_ROOT): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith('medusa-app/') && !file.includes('node_modules/') && !OWN_RUN.has(file))
    .sort();
}

/**
 * The files split into `count` suites of about equal time: longest first, each to the suite with
 * the least so far (times recorded in spec-seconds.json; a guess for new files). Every file lands
 * in exactly one suite, whatever the times say.
 */
export function partition(files: string[], count: number, seconds: Record<string, number> = SPEC_SECONDS): string[][] {
  const suites = Array.from({ length: count }, () => ({ files: [] as string[], seconds: 0 }));
  const weighed = files.map((file) => ({ file, seconds: seconds[file] ?? NEW_FILE_SECONDS }));
  weighed.sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
  for (const { file, seconds: cost } of weighed) {
    const lightest = suites.reduce((least, suite) => (suite.seconds < least.seconds ? suite : least));
    lightest.files.push(file);
    lightest.seconds += cost;
  }
  return suites.map((suite) => suite.files);
}

/** Puts process.env back as it was (in place: the object is the process's). */
function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
}

/**
 * Registers suite `number`'s files (1-based), each in a describe block named by its path. Each
 * file starts and ends with the environment the suite started with, as it would alone: what a
 * file sets (SHOPIFY_* for its app) must not reach the next file's spawned servers.
 */
export function runSuite(number: number): void {
  const startingEnv = { ...process.env };
  for (const file of partition(testFiles(), SUITE_COUNT)[number - 1]!) {
    describe(file, () => {
      beforeAll(() => restoreEnv(startingEnv)); // before the file's own hooks: it registers them below
      require(path.join(TEST_ROOT, file));
      // The apps a file started stop their timers when the file is done, as they would alone.
      afterAll(() => closeStartedApps());
      afterAll(() => restoreEnv(startingEnv));
    });
  }
}
