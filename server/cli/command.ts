import type { Knex } from 'knex';
import type { Config } from '../config';
import type { ConnectorParts } from '../http/connector';
import type { Flags } from './args';

export interface CliEnv {
  db: Knex;
  config: Config;
  /** Progress output for a terminal (never part of --json output). */
  progress: (line: string) => void;
  isTTY: boolean;
  /** The connectors whose commands are offered; read from the environment when absent. */
  connectors?: readonly ConnectorParts[];
}

export interface Command {
  /** e.g. `brand create --name N --plan P` */
  usage: string;
  /** Reads and checks the flags, with no side effect: called before a database is opened, so a usage error creates none. */
  check?(flags: Flags): void;
  run(flags: Flags, env: CliEnv): Promise<unknown>;
}

/**
 * A command that reads its flags into its input before it does anything: `check` and `run` share
 * the reading, so the CLI answers a bad flag before it opens (or creates) a database.
 */
export function flagsFirst<Input>(usage: string, read: (flags: Flags) => Input, run: (input: Input, env: CliEnv) => Promise<unknown>): Command {
  return {
    usage,
    check: (flags) => void read(flags),
    run: (flags, env) => run(read(flags), env),
  };
}

/** A command's output printed as is (a CSV file), instead of `key: value` lines or JSON. */
export class TextOutput {
  constructor(readonly text: string) {}
}
