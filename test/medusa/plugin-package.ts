import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runDir, scratchDir } from '../helpers/scratch-space';

const ROOT = path.resolve(__dirname, '../..');
export const PLUGIN_DIR = path.join(ROOT, 'connectors/medusa/plugin');

/** One build at a time: two test files building at once would pack a half-cleaned folder. */
async function withBuildLock<T>(work: () => T): Promise<T> {
  const LOCK = path.join(runDir(), 'medusa-plugin-build.lock');
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock left by a killed run is older than any build.
      if (Date.now() - fs.statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 180_000) fs.rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the Medusa plugin build lock ${LOCK} was held for 3 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    return work();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/** `npm run build:medusa-plugin`, as a developer runs it. */
export function buildPlugin(): Promise<void> {
  return withBuildLock(() => {
    execFileSync('npm', ['run', 'build:medusa-plugin'], { cwd: ROOT, stdio: 'pipe' });
  });
}

/** Builds the plugin and packs it as `npm publish` would; returns the tarball's path. */
export function packPlugin(): Promise<string> {
  return withBuildLock(() => {
    execFileSync('npm', ['run', 'build:medusa-plugin'], { cwd: ROOT, stdio: 'pipe' });
    const destination = scratchDir('medusa-plugin-');
    execFileSync('npm', ['pack', '--pack-destination', destination], { cwd: PLUGIN_DIR, stdio: 'pipe' });
    const [tarball] = fs.readdirSync(destination).filter((file) => file.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack left no tarball in ${destination}`);
    return path.join(destination, tarball);
  });
}
