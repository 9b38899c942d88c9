import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pino from 'pino';
import { createApp } from '../../server/app';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { testConfig } from '../helpers/test-app';
import { testDatabase } from '../helpers/test-database';

type Answer = { status: number; body: { data?: Record<string, any>; error?: string; code?: string; claim_id?: number } };

interface Served {
  post(path: string, brand: TestBrand, body: object): Promise<Answer>;
  close(): Promise<void>;
}

async function serve(db: Knex): Promise<Served> {
  // A window wide enough that requests sent together on a busy machine surely share a batch.
  const app = createApp({ db, config: testConfig({ writeBatch: { maxWaitMs: 250 } }), logger: pino({ level: 'silent' }) });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  return {
    async post(path, brand, body) {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { ...brand.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Answer['body'] };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let db: Knex;
let served: Served;
beforeAll(async () => {
  db = await testDatabase();
  served = await serve(db);
});
afterAll(async () => {
  await served.close();
});

describe('POST /api/v1/track/refund, refunds written together in one transaction', () => {
  it('answers each refund of a batch on its own (a repeat, one over the cap, an unknown order, another order) and stores a consistent whole', async () => {
    const brand = await givenBrand(db, { reward_type: 'percentage', reward_value: 10, reward_hold_days: 0 });
    const advocate = await givenAdvocate(db, brand.brandId);
    const [shared, other] = [uniqueOrderId(), uniqueOrderId()];
    for (const orderId of [shared, other]) {
      const made = await served.post('/track/conversion', brand, { email: `${orderId}@example.com`, order_id: orderId, order_value: 100, referral_code: advocate.code });
      expect(made.status).toBe(201);
    }

    // 60 twice under one refund_id and 50 under another, on one order of 100: whichever comes
    // first is stored, a repeat of it is a duplicate, and what would pass 100 is refused.
    const [first, repeat, over, unknown, elsewhere] = await Promise.all([
      served.post('/track/refund', brand, { order_id: shared, refund_amount: 60, refund_id: 'r-60' }),
      served.post('/track/refund', brand, { order_id: shared, refund_amount: 60, refund_id: 'r-60' }),
      served.post('/track/refund', brand, { order_id: shared, refund_amount: 50, refund_id: 'r-50' }),
      served.post('/track/refund', brand, { order_id: 'no-such-order', refund_amount: 5, refund_id: 'r-none' }),
      served.post('/track/refund', brand, { order_id: other, refund_amount: 30, refund_id: 'r-30' }),
    ]);

    expect(unknown.status).toBe(404);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data).toMatchObject({ duplicate: false, refund_amount: 30, refunded_total: 30, remaining: 70, reward_reversed: 3, status: 'partial_refund' });

    const stored: Array<{ refund_id: string; amount: string; created_at: Date }> = await db('refunds')
      .where({ brand_id: brand.brandId })
      .select('refund_id', 'amount', 'created_at');
    const onShared = stored.filter((row) => row.refund_id !== 'r-30');
    // Exactly one of r-60 and r-50 fits: the other is refused, and r-60's repeat is a duplicate or refused with it.
    expect(onShared).toHaveLength(1);
    const kept = onShared[0]!;
    const answers = [first, repeat, over];
    expect(answers.filter((answer) => answer.status === 200 && answer.body.data!.duplicate === false)).toHaveLength(1);
    if (kept.refund_id === 'r-60') {
      expect(over).toMatchObject({ status: 400 });
      expect(over.body.error).toBe('refund_amount 50 exceeds the remaining refundable amount 40');
      expect([first, repeat].map((answer) => answer.body.data?.duplicate).sort()).toEqual([false, true]);
    } else {
      expect(kept).toMatchObject({ refund_id: 'r-50' });
      expect(over.status).toBe(200);
      expect([first.status, repeat.status]).toEqual([400, 400]);
    }
    const amount = Number(kept.amount);
    const conversion = await db('conversions').where({ brand_id: brand.brandId, order_id: shared }).first();
    expect(Number(conversion.refunded_total)).toBe(amount);
    expect(conversion.status).toBe('partial_refund');
    // The advocate's 10.00 on that order shrinks pro rata: 6.00 or 5.00 reversed.
    const reversed = await db('reward_ledger').where({ brand_id: brand.brandId, conversion_id: conversion.conversion_id, kind: 'reversal' }).sum({ total: 'amount' }).first();
    expect(Math.abs(Number(reversed!.total))).toBe(amount / 10);
    // now() is the transaction's start: the same timestamp means one transaction wrote both refunds.
    const wrote = stored.map((row) => row.created_at.getTime());
    expect(new Set(wrote).size).toBe(1);
  });
});

describe('POST /api/v1/track/claim, claims written together in one transaction', () => {
  it('answers a repeat within the batch with 409, an unknown code with 404, and stores each customer\'s claim once', async () => {
    const brand = await givenBrand(db, { plan: 'premier' });
    const advocate = await givenAdvocate(db, brand.brandId);
    const [one, again, unknown, other] = await Promise.all([
      served.post('/track/claim', brand, { referral_code: advocate.code, email: 'Dana@example.com' }),
      served.post('/track/claim', brand, { referral_code: advocate.code, email: 'dana@example.com' }),
      served.post('/track/claim', brand, { referral_code: 'NO-SUCH-CODE', email: 'erin@example.com' }),
      served.post('/track/claim', brand, { referral_code: advocate.code, email: 'frank@example.com' }),
    ]);

    expect([one.status, again.status].sort()).toEqual([201, 409]);
    const [created, refused] = one.status === 201 ? [one, again] : [again, one];
    expect(refused.body).toMatchObject({ success: false, claim_id: created.body.data!.claim_id });
    expect(refused.body.error).toMatch(/24 hours/);
    expect(unknown.status).toBe(404);
    expect(other.status).toBe(201);

    const rows: Array<{ email_normalized: string; created_at: Date }> = await db('claims').where({ brand_id: brand.brandId }).select('email_normalized', 'created_at');
    expect(rows.map((row) => row.email_normalized).sort()).toEqual(['dana@example.com', 'frank@example.com']);
    expect(rows[0]!.created_at.getTime()).toBe(rows[1]!.created_at.getTime());
  });
});
