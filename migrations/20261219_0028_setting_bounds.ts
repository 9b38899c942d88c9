import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// A brand's duration and count settings bounded as the brand schema bounds them (core/brands/brand.ts:
// MAX_SETTING_DAYS, MAX_FRAUD_LIMIT), so a row written around the schema cannot stop orders either
// (issue 39: 2,147,483,647 hold days made every rewarded conversion a 400). Written out, not
// imported: a landed migration does not change with the code. A value beyond its bound is clamped
// first; it could only break orders (a longer hold or window than PostgreSQL's timestamps reach)
// or mean "no limit", as the bound does. Each check keeps PostgreSQL's name, <table>_<column>_check,
// by which the error envelope names the column.
const BOUNDS: Array<[column: string, least: number, most: number, previous: string]> = [
  ['reward_hold_days', 0, 3650, 'reward_hold_days >= 0'],
  ['attribution_window_days', 1, 3650, 'attribution_window_days > 0'],
  ['fraud_ip_window_days', 1, 3650, 'fraud_ip_window_days > 0'],
  ['reengagement_days', 1, 3650, 'reengagement_days > 0'],
  ['fraud_max_per_advocate_hour', 0, 10000, 'fraud_max_per_advocate_hour >= 0'],
  ['fraud_max_per_ip_day', 0, 10000, 'fraud_max_per_ip_day >= 0'],
];

const recheck = (check: (bound: (typeof BOUNDS)[number]) => string) =>
  `ALTER TABLE brands ${BOUNDS.map((bound) => `DROP CONSTRAINT IF EXISTS brands_${bound[0]}_check, ADD CONSTRAINT brands_${bound[0]}_check CHECK (${check(bound)})`).join(', ')};`;

const upSql = `
${BOUNDS.map(([column, , most]) => `UPDATE brands SET ${column} = ${most} WHERE ${column} > ${most};`).join('\n')}
${recheck(([column, least, most]) => `${column} BETWEEN ${least} AND ${most}`)}
`;

const downSql = `
${recheck(([, , , previous]) => previous)}
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, upSql);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, downSql);
}
