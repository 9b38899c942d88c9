/** How `npm start` and `npx referrals` end; documented in docs/operations/running.md, *Exit codes*. */
export const EXIT = {
  ok: 0,
  /** Anything unexpected, a bad setting, a failed migration; the CLI: a command that failed. */
  failed: 1,
  /** The CLI: a bad command line. */
  usage: 2,
  /** Another live process owns DATA_DIR (and, for the CLI, does not answer on its admin socket). */
  dataDirInUse: 3,
  /** PostgreSQL did not answer within DATABASE_STARTUP_TIMEOUT_SECONDS. */
  databaseUnreachable: 4,
  /** A shutdown did not finish within SHUTDOWN_TIMEOUT_MS; the rest was cut off. */
  shutdownTimedOut: 5,
} as const;
