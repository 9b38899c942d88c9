import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { createDatabase } from '../core/db/create-database';
import { createApp } from '../server/app';
import { loadConfig } from '../server/config';
import { closeRateLimits } from '../server/middleware/rate-limit';
import { BENCH_KEY_SECRET, benchDatabaseUrl, provisionTenant, recreateDatabase } from './bench-database';

/**
 * `npx tsx bench/count-round-trips.ts`: the statements one request of each kind sends to
 * PostgreSQL (BEGIN and COMMIT included), counted at the driver. A steady figure where timings on
 * a shared machine are not. The rate-limit syncs run in the background (one statement per interval
 * for all the requests in it), so they are counted apart. Uses its own database, `<bench db>_round_trips`.
 */
async function main(): Promise<void> {
  const url = new URL(benchDatabaseUrl());
  url.pathname = `${url.pathname}_round_trips`;
  await recreateDatabase(url.toString());
  const db = createDatabase({ databaseUrl: url.toString() });
  const tenant = await provisionTenant(db, 3);

  const sent: string[] = [];
  let rateLimitSyncs = 0;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string; name?: string };
    const text = typeof first === 'string' ? first : first.text;
    if (/^INSERT INTO rate_limits AS counter/.test(text)) rateLimitSyncs += 1;
    else sent.push(`${typeof first === 'object' && first.name ? '[prepared] ' : ''}${text.replace(/\s+/g, ' ').slice(0, 110)}`);
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;

  const env = { ...process.env, KEY_ENCRYPTION_SECRET: BENCH_KEY_SECRET, RATE_LIMIT_CONVERSION: '1000000', RATE_LIMIT_REFUND: '1000000', RATE_LIMIT_ELIGIBILITY: '1000000' };
  // Waiting long enough that the orders sent together share a batch.
  const config = { ...loadConfig(env), databaseUrl: url.toString(), writeBatch: { maxWaitMs: 50 } };
  const app = createApp({ db, config, logger: pino({ level: 'silent' }) });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

  const send = async (path: string, body: object) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey, 'x-brand-id': tenant.brandId },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.status;
  };
  const post = async (label: string, path: string, body: object, show = true) => {
    sent.length = 0;
    const status = await send(path, body);
    if (!show) return;
    process.stdout.write(`\n${label}: HTTP ${status}, ${sent.length} round trips\n${sent.map((text) => `  ${text}`).join('\n')}\n`);
  };
  // Orders sent at once land in one batch (one BEGIN): its statements, per order.
  const postTogether = async (label: string, bodies: object[]) => {
    sent.length = 0;
    const statuses = await Promise.all(bodies.map((body) => send('/track/conversion', body)));
    const batches = sent.filter((text) => text.startsWith('BEGIN')).length;
    const limits = sent.filter((text) => text.includes('"rate_limits"')).length;
    const grouped = new Map<string, number>();
    for (const text of sent) grouped.set(text, (grouped.get(text) ?? 0) + 1);
    process.stdout.write(
      `\n${label}: HTTP ${[...new Set(statuses)].join('/')}, ${sent.length} round trips in ${batches} batch(es), ` +
        `${(sent.length / bodies.length).toFixed(2)} per order (${((sent.length - limits) / bodies.length).toFixed(2)} without the rate-limit counter)\n` +
        `${[...grouped].map(([text, times]) => `  ${times} × ${text}`).join('\n')}\n`,
    );
  };
  const products = [{ name: 'Tee', quantity: 2, price: 25 }, { name: 'Mug', quantity: 1, price: 30 }, { name: 'Cap', quantity: 1, price: 40 }];
  const order = (n: number) => ({ email: `c${n}@shop.example`, order_id: `order-${n}`, order_value: 120, referral_code: tenant.codes[0], products });

  await post('first request (key not cached yet)', '/track/conversion', order(0), false);
  await post('conversion, new order, attributed by referral_code, 3 product lines', '/track/conversion', order(1));
  await post('conversion, the same order again (duplicate)', '/track/conversion', order(1));
  const together = Number(process.env.BENCH_BATCH_ORDERS ?? 16);
  await postTogether(`${together} new orders sent together, one advocate`, Array.from({ length: together }, (_, index) => order(100 + index)));
  await post('refund, partial, by order_id', '/track/refund', { order_id: 'order-1', refund_id: 'r-1', refund_amount: 1, is_full_refund: false });
  await post('check-eligibility, new customer', '/track/check-eligibility', { referral_code: tenant.codes[0], customer_email: 'new@shop.example' });

  server.close();
  await closeRateLimits(app);
  process.stdout.write(`\nrate-limit syncs (background, all keys in one statement each): ${rateLimitSyncs} for the 5 requests of this run (4 shown)\n`);
  pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  await db.destroy();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
