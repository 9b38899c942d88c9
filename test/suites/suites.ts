import fs from 'node:fs';
import path from 'node:path';
import { closeStartedApps } from '../helpers/started-apps';

/**
 * `npm test` runs the test files in a few suites, one module registry each: loading the app
 * (~1,100 modules) once per suite instead of once per file is most of what a small file cost.
 * Each file still runs in its own describe block, with its own hooks and module state; a file
 * named on the command line runs alone (jest.config.js). docs/development/testing.md says more. The count
 * is a multiple of jest's workers: suites of about equal time, the same number for each worker.
 */
export const SUITE_COUNT = 9;

const TEST_ROOT = path.join(__dirname, '..');
const SPEC_SECONDS: Record<string, number> = JSON.parse(fs.readFileSync(path.join(__dirname, 'spec-seconds.json'), 'utf8'));
/** A file that is not in spec-seconds.json yet counts as this many seconds. */
const NEW_FILE_SECONDS = 2;
/** Not part of `npm test`: the real Medusa store has its own install (`npm run test:medusa-app`). */
const OWN_RUN = new Set(['medusa/in-medusa-app.test.ts']);

/** Folders under test/ that hold no test of `npm test`: the Medusa store's own install is 98,000 entries, 2 s to list. */
const NOT_SEARCHED = new Set(['node_modules', 'medusa-app']);

/** Every test file under test/, as a path relative to it, in a stable order. */
export function testFiles(root = TEST_ROOT, folder = ''): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const relative = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory() && !NOT_SEARCHED.has(entry.name)) files.push(...testFiles(root, relative));
    else if (entry.isFile() && entry.name.endsWith('.test.ts') && !OWN_RUN.has(relative)) files.push(relative);
  }
  return folder ? files : files.sort();
}

/**
 * Packages that cost seconds each time a suite loads them: Medusa's framework is ~2,500 modules,
 * 2.1–2.2 CPU-s in a jest module registry. The files that load one share a suite, so a run loads it
 * once instead of once in each suite such a file lands in (4 of 9 before).
 */
const HEAVY_PACKAGES = ['@medusajs/framework'];

/** What a module loads when it runs: value imports, re-exports, side-effect imports, require. Not `import type`. */
const LOADS = [
  /^import\s+(?!type\s)[^;]*?\sfrom\s+['"]([^'"]+)['"]/gm,
  /^import\s+['"]([^'"]+)['"]/gm,
  /^export\s+(?!type\s)[^;]*?\sfrom\s+['"]([^'"]+)['"]/gm,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function localModule(base: string): string | undefined {
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.statSync(candidate, { throwIfNoEntry: false })?.isFile());
}

const specifiersByFile = new Map<string, string[]>();

/** The modules `file` loads, as written in it (read once per process). */
function specifiersOf(file: string): string[] {
  let specifiers = specifiersByFile.get(file);
  if (!specifiers) {
    const text = fs.readFileSync(file, 'utf8');
    specifiers = LOADS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
    specifiersByFile.set(file, specifiers);
  }
  return specifiers;
}

/**
 * The modules among `roots` (absolute paths) and the project's modules they import, directly or
 * not, that load one of `packages`: the import graph is walked once, then marked back from the
 * modules that name a package.
 */
export function modulesLoading(packages: string[], roots: string[]): Set<string> {
  const importers = new Map<string, string[]>();
  const loading = new Set<string>();
  const seen = new Set(roots);
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    for (const specifier of specifiersOf(file)) {
      if (packages.some((name) => specifier === name || specifier.startsWith(`${name}/`))) loading.add(file);
      const local = specifier.startsWith('.') ? localModule(path.resolve(path.dirname(file), specifier)) : undefined;
      if (!local) continue;
      importers.set(local, [...(importers.get(local) ?? []), file]);
      if (!seen.has(local)) {
        seen.add(local);
        queue.push(local);
      }
    }
  }
  const marked = [...loading];
  while (marked.length > 0) {
    for (const importer of importers.get(marked.pop()!) ?? []) {
      if (loading.has(importer)) continue;
      loading.add(importer);
      marked.push(importer);
    }
  }
  return loading;
}

/** Whether each of these test files (relative to test/) loads one of HEAVY_PACKAGES. */
function loadingHeavyPackages(files: string[]): (file: string) => boolean {
  const loading = modulesLoading(HEAVY_PACKAGES, files.map((file) => path.join(TEST_ROOT, file)));
  return (file) => loading.has(path.join(TEST_ROOT, file));
}

/**
 * The files split into `count` suites of about equal time: the files for which `together` holds
 * as one piece, every other file as a piece of its own; longest piece first, each to the suite with
 * the least so far (times recorded in spec-seconds.json; a guess for new files). Every file lands in
 * exactly one suite, whatever the times say.
 */
export function partition(files: string[], count: number, seconds: Record<string, number> = SPEC_SECONDS, together: (file: string) => boolean = loadingHeavyPackages(files)): string[][] {
  const suites = Array.from({ length: count }, () => ({ files: [] as string[], seconds: 0 }));
  const grouped = files.filter(together);
  const pieces = [...(grouped.length > 0 ? [grouped] : []), ...files.filter((file) => !together(file)).map((file) => [file])];
  const weighed = pieces.map((piece) => ({ piece, seconds: piece.reduce((sum, file) => sum + (seconds[file] ?? NEW_FILE_SECONDS), 0) }));
  weighed.sort((a, b) => b.seconds - a.seconds || a.piece[0]!.localeCompare(b.piece[0]!));
  for (const { piece, seconds: cost } of weighed) {
    const lightest = suites.reduce((least, suite) => (suite.seconds < least.seconds ? suite : least));
    lightest.files.push(...piece);
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
