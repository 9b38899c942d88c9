import path from 'node:path';
import { type Config, loadConfig } from '../config';
import { EXIT } from '../exit-codes';
import { type LifecycleSettings, loadLifecycleSettings } from '../lifecycle-settings';
import { adminSocketPath, askOwner } from './admin-socket';
import { printOutput } from './print-output';

/*
 * The `referrals` command. Only what asking a running server needs is loaded up front: while
 * `npm start` owns the embedded database, a command costs a socket round trip, not the whole app.
 */

/** `--file x.csv` names a file here: made absolute, since the data directory's owner may read it from another directory. */
function withAbsoluteFiles(argv: string[]): string[] {
  return argv.map((arg, index) => {
    if (argv[index - 1] === '--file' && !arg.startsWith('--')) return path.resolve(arg);
    return arg.startsWith('--file=') ? `--file=${path.resolve(arg.slice('--file='.length))}` : arg;
  });
}

async function main(): Promise<number> {
  const argv = withAbsoluteFiles(process.argv.slice(2));
  let config: Config;
  let settings: LifecycleSettings;
  try {
    config = loadConfig();
    settings = loadLifecycleSettings();
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (!config.databaseUrl) {
    // A running server owns the data directory: it runs the command (usage too) on its database.
    const answer = await askOwner(adminSocketPath(config.dataDir), argv);
    if (answer) return printOutput(answer);
  }
  // Loaded only now: every command, the database drivers and the connectors, ~850 modules.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runLocally } = require('./run-locally') as typeof import('./run-locally');
  return runLocally(argv, config, settings);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exit(EXIT.failed);
  },
);
