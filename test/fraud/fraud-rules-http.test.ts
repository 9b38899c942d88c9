import { redactCustomer } from '../../core/customers/redact-customer';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { viaProxyFrom } from '../helpers/client-ip';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ trustProxy: true });
});

type Headers = Record<string, string>;

const convert = (headers: Headers, body: object) =>
  t.http.post('/api/v1/track/conversion').set(headers).send({ order_id: uniqueOrderId(), order_value: 100, ...body });
const balance = (brandId: string, advocateId: number) => rewardBalance(t.db, brandId, advocateId).then((b) => b.balance);
const reasonCodes = (response: { body: { data: { review: null | { reasons: Array<{ code: string }> } } } }) =>
  response.body.data.review?.reasons.map((reason) => reason.code) ?? [];

/** A Premier brand (visits) with a fixed reward of 10 and its advocate Ann; a second advocate for her own orders. */
async function brandWithAdvocate(settings: object = {}, advocateEmail?: string) {
  const brand = await givenBrand(t.db, { plan: 'premier', reward_hold_days: 0, ...settings });
  const ann = await givenAdvocate(t.db, brand.brandId, advocateEmail ? { email: advocateEmail } : {});
  const other = await givenAdvocate(t.db, brand.brandId);
  return { brand, ann, other };
}

const VISITOR = '8c3e1f0a-5b2d-4c7e-9a1f-2d3b4c5d6e7f';
const OTHER_VISITOR = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

describe('self_referral: the referee is the advocate', () => {
  it.each([
    ['ann.smith@gmail.com', 'AnnSmith@gmail.com'],
    ['ann.smith@gmail.com', 'a.n.n.s.m.i.t.h+deals@googlemail.com'],
    ['bob@example.com', 'Bob+referral@example.com'],
  ])('holds an order by %s’s own address written as %s', async (advocateEmail, orderEmail) => {
    const { brand, ann } = await brandWithAdvocate({}, advocateEmail);
    const response = await convert(brand.headers, { email: orderEmail, referral_code: ann.code });
    expect(response.status).toBe(201);
    expect(response.body.data.review).toMatchObject({ status: 'open', reasons: [{ code: 'self_referral', detail: expect.stringContaining('email') }] });
    expect(await balance(brand.brandId, ann.advocateId)).toBe(0);
  });

  it.each([
    ['ann.smith@gmail.com', 'ann.smyth@gmail.com'],
    ['bob@example.com', 'b.o.b@example.com'],
  ])('credits an order of a different person: advocate %s, order %s (dots count outside Gmail)', async (advocateEmail, orderEmail) => {
    const { brand, ann } = await brandWithAdvocate({}, advocateEmail);
    const response = await convert(brand.headers, { email: orderEmail, referral_code: ann.code });
    expect(response.status).toBe(201);
    expect(response.body.data.review).toBeNull();
    expect(await balance(brand.brandId, ann.advocateId)).toBe(10);
  });

  it('holds an order with a visitor id or customer id the advocate ordered with, and credits one with others', async () => {
    const { brand, ann, other } = await brandWithAdvocate();
    // Ann's own order, referred by someone else, from her device and customer account.
    const own = await convert(brand.headers, { email: ann.email, referral_code: other.code, visitor_id: VISITOR, customer_id: 'cust-ann' });
    expect(own.body.data.review).toBeNull();

    const sameDevice = await convert(brand.headers, { email: 'friend1@example.com', referral_code: ann.code, visitor_id: VISITOR.toUpperCase() });
    expect(sameDevice.body.data.review.reasons).toEqual([{ code: 'self_referral', detail: 'visitor_id is one the advocate used' }]);
    const sameCustomer = await convert(brand.headers, { email: 'friend2@example.com', referral_code: ann.code, customer_id: 'cust-ann' });
    expect(sameCustomer.body.data.review.reasons).toEqual([{ code: 'self_referral', detail: 'customer_id is one the advocate ordered with' }]);
    const someoneElse = await convert(brand.headers, { email: 'friend3@example.com', referral_code: ann.code, visitor_id: OTHER_VISITOR, customer_id: 'cust-3' });
    expect(someoneElse.body.data.review).toBeNull();
    expect(await balance(brand.brandId, ann.advocateId)).toBe(10);
  });

  it('holds an order from the IP of the advocate’s recent visit, not from the IP of a visit older than the window', async () => {
    const { brand, ann, other } = await brandWithAdvocate({ fraud_ip_window_days: 7 });
    await convert(brand.headers, { email: ann.email, referral_code: other.code, visitor_id: VISITOR });
    // Ann's device clicks links from two addresses: the client IP behind the proxy, and one her server reports.
    const fromProxy = await t.http.post('/api/v1/track/visit').set({ ...brand.headers, ...viaProxyFrom('198.51.100.7') }).send({ referral_code: other.code, visitor_id: VISITOR });
    expect(fromProxy.status).toBe(200);
    const reported = await t.http.post('/api/v1/track/visit').set(brand.headers).send({ referral_code: other.code, visitor_id: VISITOR, ip_address: '203.0.113.50' });
    expect(reported.status).toBe(200);
    await t.db('visits').where({ brand_id: brand.brandId, ip_address: '203.0.113.50' }).update({ created_at: t.db.raw("now() - interval '8 days'") });

    const recent = await convert(brand.headers, { email: 'friend1@example.com', referral_code: ann.code, ip_address: '198.51.100.7' });
    expect(recent.body.data.review.reasons).toEqual([{ code: 'self_referral', detail: 'ip_address is one the advocate used in the last 7 days' }]);
    const old = await convert(brand.headers, { email: 'friend2@example.com', referral_code: ann.code, ip_address: '203.0.113.50' });
    expect(old.body.data.review).toBeNull();
    const elsewhere = await convert(brand.headers, { email: 'friend3@example.com', referral_code: ann.code, ip_address: '192.0.2.1' });
    expect(elsewhere.body.data.review).toBeNull();
  });

  it('stores the visit’s client IP (IPv4-mapped addresses as plain IPv4)', async () => {
    const { brand, other } = await brandWithAdvocate();
    await t.http.post('/api/v1/track/visit').set({ ...brand.headers, ...viaProxyFrom('::ffff:198.51.100.8') }).send({ referral_code: other.code, visitor_id: OTHER_VISITOR });
    const visit = await t.db('visits').where({ brand_id: brand.brandId }).select(t.db.raw('host(ip_address) AS ip')).first();
    expect(visit.ip).toBe('198.51.100.8');
  });

  it('is not applied when the brand switched it off', async () => {
    const { brand, ann } = await brandWithAdvocate({ fraud_self_referral: false }, 'ann.smith@gmail.com');
    const response = await convert(brand.headers, { email: 'annsmith+x@gmail.com', referral_code: ann.code });
    expect(response.body.data.review).toBeNull();
    expect(await balance(brand.brandId, ann.advocateId)).toBe(10);
  });
});

describe('velocity', () => {
  it('holds the 11th conversion of one advocate within an hour, not the 10th', async () => {
    const { brand, ann } = await brandWithAdvocate();
    for (let index = 1; index <= 10; index += 1) {
      const response = await convert(brand.headers, { email: `buyer${index}@example.com`, referral_code: ann.code });
      expect(response.body.data.review).toBeNull();
    }
    const eleventh = await convert(brand.headers, { email: 'buyer11@example.com', referral_code: ann.code });
    expect(eleventh.body.data.review.reasons).toEqual([{ code: 'velocity', detail: 'more than 10 conversions for this advocate within an hour' }]);
    expect(await balance(brand.brandId, ann.advocateId)).toBe(100);
  });

  it('counts only the last hour', async () => {
    const { brand, ann } = await brandWithAdvocate({ fraud_max_per_advocate_hour: 2 });
    await convert(brand.headers, { email: 'a1@example.com', referral_code: ann.code });
    await convert(brand.headers, { email: 'a2@example.com', referral_code: ann.code });
    await t.db('conversions').where({ brand_id: brand.brandId }).update({ created_at: t.db.raw("now() - interval '61 minutes'") });
    const third = await convert(brand.headers, { email: 'a3@example.com', referral_code: ann.code });
    expect(third.body.data.review).toBeNull();
  });

  it('holds the 6th conversion from one shopper IP within a day, whichever advocate, not the 5th', async () => {
    const { brand, ann, other } = await brandWithAdvocate();
    for (let index = 1; index <= 5; index += 1) {
      const response = await convert(brand.headers, { email: `ip${index}@example.com`, referral_code: index % 2 ? ann.code : other.code, ip_address: '192.0.2.44' });
      expect(response.body.data.review).toBeNull();
    }
    const sixth = await convert(brand.headers, { email: 'ip6@example.com', referral_code: other.code, ip_address: '192.0.2.44' });
    expect(reasonCodes(sixth)).toEqual(['velocity']);
    expect(sixth.body.data.review.reasons[0].detail).toBe('more than 5 conversions from this IP address within a day');
    const otherIp = await convert(brand.headers, { email: 'ip7@example.com', referral_code: other.code, ip_address: '192.0.2.45' });
    expect(otherIp.body.data.review).toBeNull();
  });

  it.each([
    ['switched off', { fraud_velocity: false, fraud_max_per_advocate_hour: 2 }],
    ['with a limit of 0', { fraud_max_per_advocate_hour: 0 }],
    ['with no limit', { fraud_max_per_advocate_hour: null }],
  ])('holds nothing when %s', async (_name, settings) => {
    const { brand, ann } = await brandWithAdvocate(settings);
    for (let index = 1; index <= 3; index += 1) await convert(brand.headers, { email: `v${index}@example.com`, referral_code: ann.code });
    expect(await t.db('referral_reviews').where({ brand_id: brand.brandId })).toHaveLength(0);
    expect(await balance(brand.brandId, ann.advocateId)).toBe(30);
  });
});

describe('disposable email domains', () => {
  it('holds an order from a disposable address and credits one from a normal address', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const disposable = await convert(brand.headers, { email: 'someone@mailinator.com', referral_code: ann.code });
    expect(disposable.body.data.review.reasons).toEqual([{ code: 'disposable_email', detail: 'mailinator.com is a disposable email provider' }]);
    const normal = await convert(brand.headers, { email: 'someone@example.com', referral_code: ann.code });
    expect(normal.body.data.review).toBeNull();
    expect(await balance(brand.brandId, ann.advocateId)).toBe(10);
  });

  it('is not applied when the brand switched it off', async () => {
    const { brand, ann } = await brandWithAdvocate({ fraud_disposable_email: false });
    const response = await convert(brand.headers, { email: 'someone@yopmail.com', referral_code: ann.code });
    expect(response.body.data.review).toBeNull();
  });

  it('lists every rule that fired', async () => {
    const { brand, ann } = await brandWithAdvocate({}, 'carl@mailinator.com');
    const response = await convert(brand.headers, { email: 'carl+2@mailinator.com', referral_code: ann.code });
    expect(reasonCodes(response)).toEqual(['self_referral', 'disposable_email']);
  });
});

describe('bad fraud inputs', () => {
  it.each([
    [{ ip_address: 'not-an-ip' }, 'ip_address: must be an IPv4 or IPv6 address'],
    [{ ip_address: 12 }, 'ip_address must be a string'],
    [{ customer_id: '' }, 'customer_id'],
  ])('refuses a conversion with %j with a 400 naming the field, and writes nothing', async (fields, message) => {
    const { brand, ann } = await brandWithAdvocate();
    const response = await convert(brand.headers, { email: 'x@example.com', referral_code: ann.code, ...fields });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
    expect(await t.db('conversions').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('refuses a visit whose ip_address is not an IP address', async () => {
    const { brand, ann } = await brandWithAdvocate();
    const response = await t.http.post('/api/v1/track/visit').set(brand.headers).send({ referral_code: ann.code, ip_address: '999.1.1.1' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('ip_address: must be an IPv4 or IPv6 address');
  });
});

describe('an erasure request', () => {
  it('clears the customer id and shopper IP the rules compared', async () => {
    const { brand, ann } = await brandWithAdvocate();
    await convert(brand.headers, { email: 'erase@example.com', referral_code: ann.code, customer_id: 'cust-9', ip_address: '192.0.2.99' });
    await t.db.transaction((trx) => redactCustomer(trx, brand.brandId, { email: 'erase@example.com', order_ids: [] }));
    expect(await t.db('conversions').where({ brand_id: brand.brandId }).first()).toMatchObject({ customer_id: null, customer_ip: null });
  });
});
