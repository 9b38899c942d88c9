import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** A brand, an advocate with a 10 % reward, and one converted order of 100. */
async function convertedOrder(orderValue = 100) {
  const brand = await givenBrand(t.db, { reward_hold_days: 0, reward_type: 'percentage', reward_value: 10 });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  const orderId = uniqueOrderId();
  const conversion = await t.http
    .post('/api/v1/track/conversion')
    .set(brand.headers)
    .send({ email: 'buyer@example.com', order_id: orderId, order_value: orderValue, referral_code: advocate.code });
  expect(conversion.status).toBe(201);
  return { brand, advocate, orderId, conversionId: conversion.body.data.id as number };
}

const refund = (headers: Record<string, string>, body: object) => t.http.post('/api/v1/track/refund').set(headers).send(body);
const balance = (brandId: string, advocateId: number) => rewardBalance(t.db, brandId, advocateId).then((b) => b.balance);

describe('POST /api/v1/track/refund', () => {
  it('refunds 40 of 100 as partial_refund, then the remaining 60 as refunded, and the balance returns to 0', async () => {
    const { brand, advocate, orderId, conversionId } = await convertedOrder();
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);

    const partial = await refund(brand.headers, { order_id: orderId, refund_amount: 40, is_full_refund: false, refund_id: 'r-1' });
    expect(partial.status).toBe(200);
    expect(partial.body.data).toMatchObject({ status: 'partial_refund', conversion_updated: true, claim_updated: false, conversion_id: conversionId, claim_id: null, refunded_total: 40, remaining: 60, reward_reversed: 4 });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(6);

    const rest = await refund(brand.headers, { order_id: orderId, refund_amount: 60, is_full_refund: false, refund_id: 'r-2' });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({ status: 'refunded', refunded_total: 100, remaining: 0, reward_reversed: 6 });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
    const stored = await t.db('conversions').where({ brand_id: brand.brandId, conversion_id: conversionId }).first();
    expect(stored.status).toBe('refunded');
  });

  it('returns 400 for a refund beyond the remaining amount and changes nothing', async () => {
    const { brand, advocate, orderId } = await convertedOrder();
    await refund(brand.headers, { order_id: orderId, refund_amount: 70, is_full_refund: false });
    const beyond = await refund(brand.headers, { order_id: orderId, refund_amount: 30.01, is_full_refund: false });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error).toMatch(/refund_amount 30.01 exceeds the remaining refundable amount 30/);
    expect(await t.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(3);
  });

  it('answers a repeated refund_id with duplicate: true and changes nothing', async () => {
    const { brand, advocate, orderId } = await convertedOrder();
    const body = { order_id: orderId, refund_amount: 25, is_full_refund: false, refund_id: 'shopify-refund-1' };
    const first = await refund(brand.headers, body);
    const again = await refund(brand.headers, body);
    expect(first.body.data.duplicate).toBe(false);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ duplicate: true, status: 'partial_refund', refunded_total: 25 });
    expect(await t.db('refunds').where({ brand_id: brand.brandId })).toHaveLength(1);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(7.5);
  });

  it('records one refund when the same refund_id arrives 10 times at once', async () => {
    const { brand, advocate, orderId } = await convertedOrder();
    const body = { order_id: orderId, refund_amount: 50, is_full_refund: false, refund_id: 'race' };
    const responses = await Promise.all(Array.from({ length: 10 }, () => refund(brand.headers, body)));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(responses.filter((response) => response.body.data.duplicate === false)).toHaveLength(1);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(5);
  });

  it('is_full_refund true marks the order refunded and reverses the whole remaining reward', async () => {
    const { brand, advocate, conversionId } = await convertedOrder();
    const response = await refund(brand.headers, { conversion_id: conversionId, refund_amount: 100, is_full_refund: true });
    expect(response.body.data).toMatchObject({ status: 'refunded', conversion_id: conversionId });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });

  it('new_status overrides the status it sets', async () => {
    const { brand, orderId } = await convertedOrder();
    const response = await refund(brand.headers, { order_id: orderId, refund_amount: 10, is_full_refund: false, new_status: 'refunded' });
    expect(response.body.data.status).toBe('refunded');
  });

  it('alternate form without refund_amount refunds the whole remaining amount', async () => {
    const { brand, advocate, orderId } = await convertedOrder();
    await refund(brand.headers, { order_id: orderId, refund_amount: 30 });
    const response = await refund(brand.headers, { order_id: orderId, refund_reason: 'customer changed mind', order_total: 100 });
    expect(response.body.data).toMatchObject({ status: 'refunded', refund_amount: 70, refunded_total: 100 });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });

  it('alternate form with total_refunded refunds the difference to what was already refunded', async () => {
    const { brand, orderId } = await convertedOrder();
    await refund(brand.headers, { order_id: orderId, total_refunded: 20 });
    const response = await refund(brand.headers, { order_id: orderId, total_refunded: 45 });
    expect(response.body.data).toMatchObject({ status: 'partial_refund', refund_amount: 25, refunded_total: 45 });
  });

  it('reverses rewards pro rata without losing a cent over three uneven refunds', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, reward_type: 'fixed', reward_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const orderId = uniqueOrderId();
    await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'b@example.com', order_id: orderId, order_value: 30, referral_code: advocate.code });
    for (const amount of [10, 10]) await refund(brand.headers, { order_id: orderId, refund_amount: amount, is_full_refund: false });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(3.33);
    await refund(brand.headers, { order_id: orderId, refund_amount: 10, is_full_refund: false });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
  });

  it('finds the record by claim_id and updates both the claim and the conversion', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, plan: 'premier' });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const [claim] = await t.db('claims')
      .insert({ brand_id: brand.brandId, advocate_id: advocate.advocateId, referral_code: advocate.code, email: 'c@example.com', email_normalized: 'c@example.com', raw_value: 50, claim_value: 45, discount_applied: 5 })
      .returning('claim_id');
    const conversion = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'c@example.com', order_id: uniqueOrderId(), order_value: 45, claim_id: Number(claim.claim_id) });
    expect(conversion.body.data.claim_id).toBe(Number(claim.claim_id));
    const converted = await t.db('claims').where({ brand_id: brand.brandId, claim_id: claim.claim_id }).first();
    expect(converted.status).toBe('converted');

    const response = await refund(brand.headers, { claim_id: Number(claim.claim_id), refund_amount: 45, is_full_refund: true });
    expect(response.body.data).toMatchObject({ status: 'refunded', claim_updated: true, conversion_updated: true, claim_id: Number(claim.claim_id), conversion_id: conversion.body.data.id });
    const refunded = await t.db('claims').where({ brand_id: brand.brandId, claim_id: claim.claim_id }).first();
    expect(refunded.status).toBe('refunded');
  });

  it('returns 404 when no record matches', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0 });
    const response = await refund(brand.headers, { order_id: 'missing', refund_amount: 1, is_full_refund: false });
    expect(response.status).toBe(404);
    expect(response.body.error).toContain('missing');
  });

  it.each([
    ['order_id', {}],
    ['refund_amount', { order_id: 'x', is_full_refund: false }],
    ['refund_amount', { order_id: 'x', refund_amount: '10', is_full_refund: false }],
    ['is_full_refund', { order_id: 'x', refund_amount: 10, is_full_refund: 'yes' }],
    ['conversion_id', { conversion_id: '12', refund_amount: 1, is_full_refund: false }],
    ['new_status', { order_id: 'x', refund_amount: 1, is_full_refund: false, new_status: 'lost' }],
  ])('returns 400 naming %s', async (field, body) => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0 });
    const response = await refund(brand.headers, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(field);
  });
});

describe('refunds of an advocate redeeming their reward', () => {
  async function advocateWhoRedeemed() {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, plan: 'premier', reward_type: 'fixed', reward_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'friend@example.com', order_id: uniqueOrderId(), order_value: 100, referral_code: advocate.code });
    const claim = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: advocate.email, type: 'advocate', raw_value: 50 });
    expect(claim.status).toBe(201);
    expect(claim.body.data).toMatchObject({ discount_applied: 10, claim_value: 40 });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);
    return { brand, advocate, claimId: claim.body.data.claim_id as number };
  }

  it('gives the redeemed reward back pro rata as the order is refunded, and all of it once fully refunded', async () => {
    const { brand, advocate, claimId } = await advocateWhoRedeemed();
    const orderId = uniqueOrderId();
    const conversion = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: advocate.email, order_id: orderId, order_value: 40, claim_id: claimId, type: 'advocate' });
    expect(conversion.status).toBe(201);
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(0);

    await refund(brand.headers, { order_id: orderId, refund_amount: 20, is_full_refund: false });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(5);
    await refund(brand.headers, { order_id: orderId, refund_amount: 20, is_full_refund: false });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);
    expect(await rewardBalance(t.db, brand.brandId, advocate.advocateId)).toMatchObject({ credited: 10, redeemed: 0, balance: 10 });
  });

  it('gives it all back when a claim that never converted is refunded in full', async () => {
    const { brand, advocate, claimId } = await advocateWhoRedeemed();
    const response = await refund(brand.headers, { claim_id: claimId, refund_amount: 40, is_full_refund: true, refund_id: 'claim-refund' });
    expect(response.body.data).toMatchObject({ status: 'refunded', claim_updated: true, conversion_updated: false });
    await refund(brand.headers, { claim_id: claimId, refund_amount: 40, is_full_refund: true, refund_id: 'claim-refund' });
    expect(await balance(brand.brandId, advocate.advocateId)).toBe(10);
  });
});
