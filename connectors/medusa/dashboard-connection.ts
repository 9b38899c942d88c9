import type { Knex } from 'knex';
import type { ConnectionSection } from '../../server/http';

/** Deliveries shown on the dashboard: the newest, enough to see whether orders still arrive. */
const RECENT_DELIVERIES = 20;

/**
 * The dashboard's Medusa section: the order snapshots the plugin delivered, newest first. The
 * plugin retries until we accept, so what is missing here is still queued in the store (its
 * admin route /admin/referral-deliveries lists them). Null when the brand never received one.
 */
export async function medusaConnection(db: Knex, brandId: string): Promise<ConnectionSection | null> {
  const recent = await db('medusa_deliveries')
    .where({ brand_id: brandId })
    .orderBy('received_at', 'desc')
    .limit(RECENT_DELIVERIES)
    .select('event_id', 'event_name', 'order_id', 'outcome', 'received_at');
  if (recent.length === 0) return null;
  const last = new Date(recent[0].received_at);
  const dayAgo = new Date(Date.now() - 86_400_000);
  const lastDay = await db('medusa_deliveries').where({ brand_id: brandId }).where('received_at', '>=', dayAgo).count({ n: '*' }).first();
  return {
    title: 'Medusa',
    summary: `Last delivery from the Medusa plugin at ${last.toISOString()}; ${Number(lastDay?.n ?? 0)} in the last 24 hours.`,
    facts: [
      ['Last delivery', last.toISOString()],
      ['Deliveries in the last 24 hours', String(Number(lastDay?.n ?? 0))],
    ],
    tables: [
      {
        caption: `The ${RECENT_DELIVERIES} newest deliveries`,
        columns: ['Received at', 'Event', 'Order', 'Outcome', 'Event id'],
        rows: recent.map((row) => [new Date(row.received_at).toISOString(), row.event_name, row.order_id, JSON.stringify(row.outcome), row.event_id]),
      },
    ],
    actions: [],
  };
}
