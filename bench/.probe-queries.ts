// temporary: counts the queries of one conversion request (not part of the bench)
import pino from 'pino';
import { createDatabase } from '../core/db/create-database';
import { createApp } from '../server/app';
import { loadConfig } from '../server/config';
import { BENCH_KEY_SECRET, benchDatabaseUrl, provisionTenant, recreateDatabase } from './bench-database';
import http from 'node:http';

async function main() {
  const url = benchDatabaseUrl();
  await recreateDatabase(url);
  const db = createDatabase({ databaseUrl: url });
  const tenant = await provisionTenant(db, 10);
  const config = { ...loadConfig({ ...process.env, KEY_ENCRYPTION_SECRET: BENCH_KEY_SECRET, RATE_LIMIT_CONVERSION: '1000000', RATE_LIMIT_REFUND: '1000000', RATE_LIMIT_ELIGIBILITY: '1000000' }), databaseUrl: url };
  const app = createApp({ db, config, logger: pino({ level: 'silent' }) });
  const server = http.createServer(app.callback()).listen(0);
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as any).port;
  let log: string[] = [];
  const starts = new Map<string, bigint>();
  db.on('query', (q: any) => { starts.set(q.__knexQueryUid, process.hrtime.bigint()); });
  db.on('query-response', (_r: any, q: any) => { const t = Number(process.hrtime.bigint() - starts.get(q.__knexQueryUid)!) / 1e6; log.push(`${t.toFixed(2)}ms ${String(q.sql).slice(0, 150)}`); });
  const send = async (path: string, body: object) => {
    log = [];
    const t0 = process.hrtime.bigint();
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey, 'x-brand-id': tenant.brandId }, body: JSON.stringify(body) });
    const text = await res.text();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(`\n== ${path} ${res.status} ${ms.toFixed(2)}ms ${log.length} queries ${text.slice(0, 120)}`);
    for (const l of log) console.log('  ' + l);
  };
  const order = (n: number) => ({ email: `c${n}@x.example`, order_id: `o-${n}`, order_value: 120, referral_code: tenant.codes[0], products: [{ name: 'a', quantity: 2, price: 25 }, { name: 'b', quantity: 1, price: 30 }, { name: 'c', quantity: 1, price: 40 }] });
  for (let i = 0; i < 3; i++) await send('/api/v1/track/conversion', order(i));
  await send('/api/v1/track/conversion', order(1));
  await send('/api/v1/track/refund', { order_id: 'o-1', refund_amount: 1, is_full_refund: false, refund_id: 'r1' });
  await send('/api/v1/track/check-eligibility', { referral_code: tenant.codes[0], customer_email: 'new@x.example' });
  server.close();
  await db.destroy();
}
main();
