import type { Knex } from 'knex';
import * as coreSchema from './20261122_0001_core_schema';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Listed explicitly (not read from the file system) so migrations run the same under tsx, jest
// and compiled JavaScript. Append new migrations; never reorder or edit a landed one.
export const migrations: Array<[name: string, migration: Migration]> = [
  ['20261122_0001_core_schema', coreSchema],
];
