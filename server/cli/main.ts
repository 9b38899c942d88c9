import { createDatabase } from '../../core/db/create-database';
import { migrateToLatest } from '../../core/db/migrate';
import { loadConfig } from '../config';
import { adminSocketPath, forwardToServer } from './admin-socket';
import { runCli } from './run-cli';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 2;
  }
  if (!config.databaseUrl) {
    const forwarded = await forwardToServer(adminSocketPath(config.dataDir), argv);
    if (forwarded) {
      process.stdout.write(forwarded.stdout);
      process.stderr.write(forwarded.stderr);
      return forwarded.code;
    }
  }
  const db = createDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2 });
  try {
    await migrateToLatest(db);
    const output = await runCli(argv, {
      db,
      config,
      isTTY: Boolean(process.stderr.isTTY),
      progress: (line) => process.stderr.write(line),
    });
    process.stdout.write(output.stdout);
    process.stderr.write(output.stderr);
    return output.code;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
