import { z } from 'zod';
import { parseEnvSettings, wholeNumber } from './env-number';

const lifecycleSchema = z
  .object({
    SHUTDOWN_TIMEOUT_MS: wholeNumber('SHUTDOWN_TIMEOUT_MS', 10_000),
    DATABASE_STARTUP_TIMEOUT_SECONDS: wholeNumber('DATABASE_STARTUP_TIMEOUT_SECONDS', 60),
    CLI_OWNER_WAIT_SECONDS: wholeNumber('CLI_OWNER_WAIT_SECONDS', 30),
  })
  .transform((env) => ({
    /** How long a SIGTERM/SIGINT may take to drain before the process is forced out. */
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    /** How long `npm start` waits for an unreachable PostgreSQL before giving up. */
    databaseStartupTimeoutMs: env.DATABASE_STARTUP_TIMEOUT_SECONDS * 1000,
    /** How long the CLI waits for the data directory's owner to answer, or to let go of it. */
    cliOwnerWaitMs: env.CLI_OWNER_WAIT_SECONDS * 1000,
  }));

export type LifecycleSettings = z.infer<typeof lifecycleSchema>;

/** Start-up and shutdown settings of the server process and the CLI. */
export function loadLifecycleSettings(env: NodeJS.ProcessEnv = process.env): LifecycleSettings {
  return parseEnvSettings(lifecycleSchema, env);
}
