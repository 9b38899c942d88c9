import { updateBrand } from '../../core/brands/brand';
import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { csrfTokenOf, signedInAgent } from './dashboard-helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

/** Who a sign-in link's session acts as (the audit log and the ledger name it). */
const OPERATOR = 'operator (CLI sign-in link)';

/** A brand paying a fixed reward per referred order, held 30 days; an advocate; a signed-in agent and its CSRF token. */
async function program(settings: object = {}) {
  const brand = await givenBrand(t.db, { reward_type: 'fixed', reward_value: 10, reward_hold_days: 30, ...settings });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  const agent = await signedInAgent(t.app, t.db, brand.brandId);
  const page = await agent.get('/dashboard/rewards');
  expect(page.status).toBe(200);
  return { brand, advocate, agent, csrf: csrfTokenOf(page.text) };
}

/** A referred order of `code`, recorded through the API as a store reports it; its reward's id. */
async function referredOrder(brand: { headers: Record<string, string> }, code: string, fields: object = {}): Promise<{ rewardId: number; orderId: string }> {
  const orderId = uniqueOrderId();
  const sent = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: `${orderId}@example.com`, order_id: orderId, order_value: 100, referral_code: code, ...fields });
  expect(sent.status).toBe(201);
  const reward = await t.db('rewards').where({ conversion_id: sent.body.data.id }).first('reward_id');
  return { rewardId: Number(reward.reward_id), orderId };
}

const rewardRow = (brandId: string, rewardId: number) => t.db('rewards').where({ brand_id: brandId, reward_id: rewardId }).first();
const auditOf = (brandId: string, rewardId: number) => t.db('audit_log').where({ brand_id: brandId, subject: `reward:${rewardId}` }).orderBy('entry_id').select('actor', 'action', 'before', 'after');
/** The reward ids of the page's cards, in page order. */
const cardIds = (html: string) => [...html.matchAll(/<h2 id="reward-(\d+)">/g)].map((match) => Number(match[1]));

describe('the Rewards page', () => {
  it('shows each reward as a card in words: amount, hold end, advocate, the order and its refund, fulfilment and history; Rewards is in the navigation', async () => {
    const { brand, advocate, agent } = await program();
    const { rewardId, orderId } = await referredOrder(brand, advocate.code);
    const refund = await t.http.post('/api/v1/track/refund').set(brand.headers).send({ order_id: orderId, refund_amount: 20, refund_id: `r-${orderId}` });
    expect(refund.status).toBe(200);
    const page = await agent.get('/dashboard/rewards');
    expect(page.text).toContain('<a href="/dashboard/rewards" aria-current="page">Rewards</a>');
    expect(page.text).toContain(`Reward ${rewardId} · <span data-field="amount">10.00 USD</span>`);
    const holdEnd = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format((await rewardRow(brand.brandId, rewardId)).hold_until);
    expect(page.text).toContain(`data-field="status">On hold until ${holdEnd}</span>`);
    expect(page.text).toContain(`href="/dashboard/advocates/${advocate.advocateId}"`);
    expect(page.text).toMatch(new RegExp(`data-field="order">${orderId} · 100.00 USD · \\d+ \\w+ \\d{4} · partly refunded<`));
    expect(page.text).toMatch(/data-field="refunds"><li>20.00 USD on \d+ \w+ \d{4}<\/li>/);
    expect(page.text).toContain('data-field="fulfilment">Not yet: it is handed out once approved.');
    expect(page.text).toContain('Earned, on hold · 10.00 USD · automatically');
    expect(page.text).toContain('Refund during hold · -2.00 USD · automatically');
    expect(page.text.replace(/<[^>]*>/g, ' ')).not.toMatch(/partial_refund|pending|in_review|hold_reversal/);
    expect(page.text).toContain(`Approve reward ${rewardId} now`);
    expect(page.text).toContain(`href="/dashboard/rewards/${rewardId}/void?status=all&amp;period=all"`);
  });

  it('filters by status, by advocate (id, email or code) and by period, 25 a page, newest first', async () => {
    const { brand, advocate, agent, csrf } = await program();
    const other = await givenAdvocate(t.db, brand.brandId, { code: `OTHER${Date.now()}` });
    const mine: number[] = [];
    for (let i = 0; i < 26; i += 1) mine.push((await referredOrder(brand, advocate.code)).rewardId);
    const theirs = (await referredOrder(brand, other.code)).rewardId;
    const first = await agent.get('/dashboard/rewards');
    expect(cardIds(first.text)).toEqual([theirs, ...mine.slice(-24).reverse()]);
    expect(first.text).toContain('rel="next"');
    const second = await agent.get('/dashboard/rewards?page=2');
    expect(cardIds(second.text)).toEqual(mine.slice(0, 2).reverse());
    expect(second.text).not.toContain('rel="next"');

    for (const search of [String(other.advocateId), other.email.toUpperCase().slice(0, 12), other.code.toLowerCase()]) {
      expect({ search, ids: cardIds((await agent.get(`/dashboard/rewards?advocate=${encodeURIComponent(search)}`)).text) }).toEqual({ search, ids: [theirs] });
    }
    expect((await agent.post(`/dashboard/rewards/${mine[0]}/approve`).type('form').send({ csrf_token: csrf })).status).toBe(303);
    expect(cardIds((await agent.get('/dashboard/rewards?status=approved')).text)).toEqual([mine[0]]);
    expect(cardIds((await agent.get('/dashboard/rewards?status=voided')).text)).toEqual([]);

    await t.db('rewards').where({ brand_id: brand.brandId, reward_id: theirs }).update({ created_at: t.db.raw("now() - interval '100 days'") });
    expect(cardIds((await agent.get('/dashboard/rewards?period=30&advocate=' + other.advocateId)).text)).toEqual([]);
    expect(cardIds((await agent.get('/dashboard/rewards?period=all&advocate=' + other.advocateId)).text)).toEqual([theirs]);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    expect(cardIds((await agent.get(`/dashboard/rewards?period=custom&from=${day(101)}&to=${day(99)}`)).text)).toEqual([theirs]);
    const bad = await agent.get('/dashboard/rewards?status=paid');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('status');
  });

  it('approves a held reward early with a note: the same core call as the API, in the ledger and the audit log as the signed-in user', async () => {
    const { brand, advocate, agent, csrf } = await program();
    const { rewardId } = await referredOrder(brand, advocate.code);
    const approved = await agent.post(`/dashboard/rewards/${rewardId}/approve`).type('form').send({ csrf_token: csrf, note: 'loyal customer', status: 'pending', period: 'all' });
    expect(approved.status).toBe(303);
    expect(approved.headers.location).toBe(`/dashboard/rewards?status=pending&period=all&done=approved&reward=${rewardId}`);
    expect(await rewardRow(brand.brandId, rewardId)).toMatchObject({ status: 'approved' });
    expect(await auditOf(brand.brandId, rewardId)).toEqual([{ actor: OPERATOR, action: 'reward.approve', before: { status: 'pending' }, after: { status: 'approved', reason: 'loyal customer' } }]);
    const balance = await t.http.get(`/api/v1/advocates/${advocate.advocateId}/balance`).set(brand.headers);
    expect(balance.body.data).toMatchObject({ approved: 10, pending: 0 });

    const after = await agent.get(approved.headers.location!);
    expect(after.text).toContain(`<p class="note" role="status">Reward ${rewardId} approved.</p>`);
    const all = await agent.get('/dashboard/rewards');
    expect(all.text).toMatch(/data-field="status">Approved \d+ \w+ \d{4}</);
    expect(all.text).toMatch(/data-field="hold">Approved early, before \d+ \w+ \d{4}</);
    expect(all.text).toContain(`Approved · 10.00 USD · by ${OPERATOR} · “loyal customer”`);
    expect(all.text).toContain('data-field="fulfilment">To pay by hand: it is on Payouts.');
    expect(all.text).not.toContain(`Approve reward ${rewardId} now`);

    const again = await agent.post(`/dashboard/rewards/${rewardId}/approve`).type('form').send({ csrf_token: csrf });
    expect(again.status).toBe(409);
    expect(again.text).toMatch(new RegExp(`id="reward-${rewardId}"[\\s\\S]*<p class="error" role="alert">Reward ${rewardId} is already approved.</p>`));
    expect(await auditOf(brand.brandId, rewardId)).toHaveLength(1);
  });

  it('voids only after a confirmation page that works without JavaScript, with a reason; a second void is a 409 on that page', async () => {
    const { brand, advocate, agent, csrf } = await program();
    const { rewardId } = await referredOrder(brand, advocate.code);
    const list = await agent.get('/dashboard/rewards?status=pending');
    expect(list.text).toContain(`<a class="button danger" href="/dashboard/rewards/${rewardId}/void?status=pending&amp;period=all">Void reward ${rewardId}…</a>`);
    expect(list.text).not.toContain(`action="/dashboard/rewards/${rewardId}/void"`);

    const confirm = await agent.get(`/dashboard/rewards/${rewardId}/void?status=pending&period=all`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`<h1>Void reward ${rewardId}?</h1>`);
    expect(confirm.text).toContain(`<form method="post" action="/dashboard/rewards/${rewardId}/void"`);
    expect(confirm.text).toContain('<input type="text" id="void-reason" name="reason" required');
    expect(confirm.text).toContain('<button type="submit" class="danger">Yes, void this reward</button>');
    expect(confirm.text).toContain('<input type="hidden" name="status" value="pending">');

    const empty = await agent.post(`/dashboard/rewards/${rewardId}/void`).type('form').send({ csrf_token: csrf, reason: '   ', status: 'pending', period: 'all' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('id="void-reason-error">Write why you void this reward');
    expect(await rewardRow(brand.brandId, rewardId)).toMatchObject({ status: 'pending' });

    const voided = await agent.post(`/dashboard/rewards/${rewardId}/void`).type('form').send({ csrf_token: csrf, reason: 'order was a test', status: 'pending', period: 'all' });
    expect(voided.status).toBe(303);
    expect(voided.headers.location).toBe(`/dashboard/rewards?status=pending&period=all&done=voided&reward=${rewardId}`);
    expect(await rewardRow(brand.brandId, rewardId)).toMatchObject({ status: 'voided', void_reason: 'order was a test' });
    expect(await auditOf(brand.brandId, rewardId)).toEqual([{ actor: OPERATOR, action: 'reward.void', before: { status: 'pending' }, after: { status: 'voided', reason: 'order was a test' } }]);
    const shown = await agent.get('/dashboard/rewards?status=voided');
    expect(shown.text).toContain('data-field="void-reason">order was a test<');
    expect(shown.text).toContain(`Voided while held · -10.00 USD · by ${OPERATOR} · “order was a test”`);
    expect(shown.text).toContain('data-field="fulfilment">Nothing: the reward is voided.');

    const twice = await agent.post(`/dashboard/rewards/${rewardId}/void`).type('form').send({ csrf_token: csrf, reason: 'again' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain(`<p class="error" role="alert">Reward ${rewardId} is already voided.</p>`);
    expect(twice.text).not.toContain('Yes, void this reward');
    expect(await auditOf(brand.brandId, rewardId)).toHaveLength(1);
  });

  it('says which reward code an approval made for a brand whose advocates get codes', async () => {
    const { brand, advocate, agent, csrf } = await program();
    await updateBrand(t.db, brand.brandId, { reward_fulfilment: 'coupon' });
    const { rewardId } = await referredOrder(brand, advocate.code);
    expect((await agent.post(`/dashboard/rewards/${rewardId}/approve`).type('form').send({ csrf_token: csrf })).status).toBe(303);
    const issue = await t.db('reward_issues').where({ brand_id: brand.brandId, advocate_id: advocate.advocateId }).first('code');
    const page = await agent.get('/dashboard/rewards');
    expect(page.text).toContain(`data-field="fulfilment">In reward code ${issue.code}: being made on your store.<`);
  });

  it('refuses approve and void posted without the session’s CSRF token (403) and changes nothing', async () => {
    const { brand, advocate, agent, csrf } = await program();
    const { rewardId } = await referredOrder(brand, advocate.code);
    expect((await agent.post(`/dashboard/rewards/${rewardId}/approve`).type('form').send({ note: 'x' })).status).toBe(403);
    expect((await agent.post(`/dashboard/rewards/${rewardId}/void`).type('form').send({ csrf_token: `${csrf.slice(0, -2)}xx`, reason: 'x' })).status).toBe(403);
    expect((await agent.post('/dashboard/rewards/bulk/void').type('form').send({ reason: 'x', upto: rewardId, asof: new Date().toISOString() })).status).toBe(403);
    expect(await rewardRow(brand.brandId, rewardId)).toMatchObject({ status: 'pending' });
    expect(await auditOf(brand.brandId, rewardId)).toEqual([]);
  });

  it('answers 404 for another brand’s reward and changes nothing', async () => {
    const { agent, csrf } = await program();
    const other = await program();
    const { rewardId } = await referredOrder(other.brand, other.advocate.code);
    expect((await agent.get(`/dashboard/rewards/${rewardId}/void`)).status).toBe(404);
    expect((await agent.post(`/dashboard/rewards/${rewardId}/approve`).type('form').send({ csrf_token: csrf })).status).toBe(404);
    expect((await agent.post(`/dashboard/rewards/${rewardId}/void`).type('form').send({ csrf_token: csrf, reason: 'x' })).status).toBe(404);
    expect(await rewardRow(other.brand.brandId, rewardId)).toMatchObject({ status: 'pending' });
  });
});

describe('approve or void all that match', () => {
  /** The confirmation page's hidden fields, as the browser posts them back. */
  const hiddenFields = (html: string) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map((match) => [match[1]!, match[2]!]));

  it('approves every held reward of the filter after a confirmation, skipping one approved since and saying why', async () => {
    const { brand, advocate, agent } = await program();
    const other = await givenAdvocate(t.db, brand.brandId);
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await referredOrder(brand, advocate.code)).rewardId);
    const notMatching = (await referredOrder(brand, other.code)).rewardId;
    const list = await agent.get(`/dashboard/rewards?advocate=${encodeURIComponent(advocate.email)}`);
    expect(list.text).toContain(`Approve all 3 on hold that match…</a>`);
    const confirm = await agent.get(`/dashboard/rewards/bulk?action=approve&status=all&period=all&advocate=${encodeURIComponent(advocate.email)}`);
    expect(confirm.text).toContain('<h1>Approve 3 rewards?</h1>');
    expect(confirm.text).toContain('Yes, approve all 3');
    // Approved through the API between the confirmation and the click: it moved on.
    expect((await t.http.post(`/api/v1/rewards/${ids[1]}/approve`).set(brand.headers).send({})).status).toBe(200);
    // Made after the confirmation: never counted, never touched.
    const later = (await referredOrder(brand, advocate.code)).rewardId;

    const posted = await agent.post('/dashboard/rewards/bulk/approve').type('form').send({ ...hiddenFields(confirm.text), note: 'spring clean' });
    expect(posted.status).toBe(303);
    const notice = await agent.get(posted.headers.location!);
    expect(notice.text).toContain('<p class="note" role="status">Approved 2 rewards. Skipped 1, changed since you confirmed: 1 was already approved.</p>');
    for (const id of ids) expect(await rewardRow(brand.brandId, id)).toMatchObject({ status: 'approved' });
    expect(await rewardRow(brand.brandId, later)).toMatchObject({ status: 'pending' });
    expect(await rewardRow(brand.brandId, notMatching)).toMatchObject({ status: 'pending' });
    expect(await auditOf(brand.brandId, ids[0]!)).toEqual([{ actor: OPERATOR, action: 'reward.approve', before: { status: 'pending' }, after: { status: 'approved', reason: 'spring clean' } }]);
    expect((await auditOf(brand.brandId, ids[1]!)).map((entry) => entry.actor)).toEqual([`api_key:${brand.keyId}`]);
  });

  it('voids all that match only with a reason, leaving rewards in fraud review to Reviews', async () => {
    const { brand, advocate, agent } = await program();
    const held = [(await referredOrder(brand, advocate.code)).rewardId, (await referredOrder(brand, advocate.code)).rewardId];
    const inReview = (await referredOrder(brand, advocate.code, { email: 'shopper@mailinator.com' })).rewardId;
    expect(await rewardRow(brand.brandId, inReview)).toMatchObject({ status: 'in_review' });
    const confirm = await agent.get('/dashboard/rewards/bulk?action=void');
    expect(confirm.text).toContain('<h1>Void 2 rewards?</h1>');
    expect(confirm.text).toContain('1 in fraud review is left to');
    const fields = hiddenFields(confirm.text);
    const empty = await agent.post('/dashboard/rewards/bulk/void').type('form').send({ ...fields, reason: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('id="bulk-reason-error">Write why you void these rewards');
    expect(await rewardRow(brand.brandId, held[0]!)).toMatchObject({ status: 'pending' });

    const posted = await agent.post('/dashboard/rewards/bulk/void').type('form').send({ ...fields, reason: 'campaign cancelled' });
    expect(posted.status).toBe(303);
    expect((await agent.get(posted.headers.location!)).text).toContain('<p class="note" role="status">Voided 2 rewards.</p>');
    for (const id of held) expect(await rewardRow(brand.brandId, id)).toMatchObject({ status: 'voided', void_reason: 'campaign cancelled' });
    expect(await rewardRow(brand.brandId, inReview)).toMatchObject({ status: 'in_review' });
  });
});

describe('the Rewards CSV', () => {
  it('exports every reward of the filter with the currency’s decimals, in words, its cells safe to open in a spreadsheet', async () => {
    const { brand, advocate, agent, csrf } = await program({ currency: 'JPY', reward_value: 500 });
    const rewards: number[] = [];
    for (let i = 0; i < 3; i += 1) rewards.push((await referredOrder(brand, advocate.code, { order_value: 12000 })).rewardId);
    const confirm = await agent.post(`/dashboard/rewards/${rewards[0]}/void`).type('form').send({ csrf_token: csrf, reason: '=HYPERLINK("http://evil.example")' });
    expect(confirm.status).toBe(303);
    const csv = await agent.get('/dashboard/rewards?format=csv&status=all');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="rewards-all.csv"');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('reward_id,created_at,status,amount,currency,advocate_id,advocate_email,order_id,order_date,order_value,order_refunded,order_currency,order_status,hold_until,approved_at,voided_at,void_reason,paid_out,review_id,review_status,fulfilment');
    expect(lines).toHaveLength(4);
    const voided = lines.find((line) => line.startsWith(`${rewards[0]},`))!;
    expect(voided).toContain(',Voided,500,JPY,');
    expect(voided).toContain(`,12000,0,JPY,paid,`);
    expect(voided).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(csv.text).not.toMatch(/pending|voided,/);
    const held = await agent.get('/dashboard/rewards?format=csv&status=pending');
    expect(held.text.trim().split('\r\n')).toHaveLength(3);

    const usd = await program();
    const { rewardId } = await referredOrder(usd.brand, usd.advocate.code, { order_value: 120 });
    const cents = await usd.agent.get('/dashboard/rewards?format=csv');
    expect(cents.text).toContain(`${rewardId},`);
    expect(cents.text).toContain(',On hold,10.00,USD,');
    expect(cents.text).toContain(',120.00,0.00,USD,paid,');
  });
});
