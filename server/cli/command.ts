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
  run(flags: Flags, env: CliEnv): Promise<unknown>;
}

/** A command's output printed as is (a CSV file), instead of `key: value` lines or JSON. */
export class TextOutput {
  constructor(readonly text: string) {}
}
