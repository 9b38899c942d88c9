import type { Knex } from 'knex';
import type { Config } from '../config';
import type { Flags } from './args';

export interface CliEnv {
  db: Knex;
  config: Config;
  /** Progress output for a terminal (never part of --json output). */
  progress: (line: string) => void;
  isTTY: boolean;
}

export interface Command {
  /** e.g. `brand create --name N --plan P` */
  usage: string;
  run(flags: Flags, env: CliEnv): Promise<unknown>;
}
