import { createDatabase, type Database } from '../../core/db/create-database';
import { DataDirInUseError } from '../../core/db/data-dir-lock';
import { migrateToLatest } from '../../core/db/migrate';
import type { Config } from '../config';
import { EXIT } from '../exit-codes';
import type { LifecycleSettings } from '../lifecycle-settings';
import { adminSocketPath, askOwner } from './admin-socket';
import { printOutput as print } from './print-output';
import { type CommandToRun, resolveLine, runCommand } from './run-cli';

/*
 * The CLI when no running server answered for it: every command, the database drivers and the
 * connectors (server/cli/main.ts loads this module only then).
 */

/** Runs the command on a database this process opened (and, when embedded, locked). */
async function runHere(db: Database, toRun: CommandToRun, config: Config): Promise<number> {
  try {
    await migrateToLatest(db);
    return print(
      await runCommand(toRun, { db, config, isTTY: Boolean(process.stderr.isTTY), progress: (line) => process.stderr.write(line) }),
    );
  } finally {
    await db.destroy();
  }
}

/**
 * On the embedded database: open the data directory only when no one owns it, else hand the command
 * to its owner. An owner that is starting, or another CLI run, gets `cliOwnerWaitMs` to answer or
 * to let go.
 */
async function runOnDataDir(argv: string[], toRun: CommandToRun, config: Config, settings: LifecycleSettings): Promise<number> {
  const socketPath = adminSocketPath(config.dataDir);
  const deadline = Date.now() + settings.cliOwnerWaitMs;
  let told = false;
  for (;;) {
    let db: Database;
    try {
      db = createDatabase({ dataDir: config.dataDir });
    } catch (error) {
      if (!(error instanceof DataDirInUseError)) throw error;
      const answer = await askOwner(socketPath, argv);
      if (answer) return print(answer);
      if (Date.now() >= deadline) {
        process.stderr.write(
          `error: ${error.message}, and nothing answers on ${socketPath} ` +
            `(waited ${settings.cliOwnerWaitMs / 1000} s). Run the command once that process has stopped, or start the server.\n`,
        );
        return EXIT.dataDirInUse;
      }
      if (!told) process.stderr.write(`waiting for ${error.ownerPid === null ? 'the process' : `pid ${error.ownerPid}`} that owns ${error.dataDir}…\n`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    return runHere(db, toRun, config);
  }
}

/** Runs the command line in this process: resolved once, then on the configured database (or by its owner). */
export async function runLocally(argv: string[], config: Config, settings: LifecycleSettings): Promise<number> {
  // Usage, --help, unknown commands and bad flags need no database: a typo must not create one.
  const resolved = resolveLine(argv);
  if ('answer' in resolved) return print(resolved.answer);
  if (config.databaseUrl) return runHere(createDatabase({ databaseUrl: config.databaseUrl, poolMax: 2 }), resolved, config);
  return runOnDataDir(argv, resolved, config, settings);
}
