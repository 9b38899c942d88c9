import type { Knex } from 'knex';
import { runStatements } from './run-statements';

// reward.issued (docs/api/webhooks.md): a brand's systems hear of an advocate's reward code when the
// store has it. The events' CHECK list, written out: a landed migration does not change with the code.
const BEFORE = `'claim.created', 'conversion.created', 'conversion.refunded', 'reward.credited', 'reward.reversed', 'webhook.test'`;

const check = (types: string) => `
ALTER TABLE webhook_events DROP CONSTRAINT IF EXISTS webhook_events_type_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check CHECK (type IN (${types}));
`;

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, check(`${BEFORE}, 'reward.issued'`));
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `DELETE FROM webhook_events WHERE type = 'reward.issued';${check(BEFORE)}`);
}
