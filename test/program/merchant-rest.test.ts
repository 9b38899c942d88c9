import { givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { type TestApp, startTestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

describe('advocates over REST', () => {
  it('enrols an advocate: 201 with their code and share link, and the welcome email queued; a taken email is a 409 naming them', async () => {
    const brand = await givenBrand(t.db, { store_url: 'https://rest.example' });
    const created = await t.http.post('/api/v1/advocates').set(brand.headers).send({ email: 'Zoe@Rest.example', first_name: 'Zoë', code: 'ZOE10' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ email: 'Zoe@Rest.example', first_name: 'Zoë', referral_codes: ['ZOE10'], share_link: 'https://rest.example/?ref=ZOE10' });
    expect(await t.db('mail_messages').where({ brand_id: brand.brandId }).pluck('template')).toEqual(['advocate_welcome']);
    const again = await t.http.post('/api/v1/advocates').set(brand.headers).send({ email: 'zoe@rest.example', first_name: 'Z' });
    expect([again.status, again.body.advocate_id]).toEqual([409, created.body.data.advocate_id]);
  });

  it('refuses bad input with a 400 naming the field, writing nothing', async () => {
    const brand = await givenBrand(t.db);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ first_name: 'A' }, /^email/],
      [{ email: 'a@example', first_name: 'A' }, /^email/],
      [{ email: 'a@example.com' }, /^first_name/],
      [{ email: 'a@example.com', first_name: 'A', code: 'no spaces' }, /^code/],
      [{ email: 'a@example.com', first_name: 7 }, /^first_name/],
    ];
    for (const [body, error] of cases) {
      const refused = await t.http.post('/api/v1/advocates').set(brand.headers).send(body);
      expect([body, refused.status, refused.body.error]).toEqual([body, 400, expect.stringMatching(error)]);
    }
    expect(await t.db('advocates').where({ brand_id: brand.brandId })).toHaveLength(0);
  });

  it('lists a brand\'s advocates a page at a time, searches by email, name or code, and shows one; another brand\'s stay hidden', async () => {
    const brand = await givenBrand(t.db);
    const other = await givenBrand(t.db);
    const ids = [];
    for (const index of [1, 2, 3]) ids.push((await givenAdvocate(t.db, brand.brandId, { email: `p${index}@page.example`, first_name: `Page${index}`, code: `PAGE${index}` })).advocateId);
    const hidden = await givenAdvocate(t.db, other.brandId, { email: 'p9@page.example' });
    const first = await t.http.get('/api/v1/advocates?limit=2').set(brand.headers);
    expect([first.body.data.map((row: { advocate_id: number }) => row.advocate_id), first.body.has_more]).toEqual([ids.slice(0, 2), true]);
    const second = await t.http.get(`/api/v1/advocates?limit=2&cursor=${first.body.next_cursor}`).set(brand.headers);
    expect([second.body.data.map((row: { advocate_id: number }) => row.advocate_id), second.body.has_more, second.body.next_cursor]).toEqual([ids.slice(2), false, null]);
    for (const q of ['p2@page', 'page2', 'PAGE2']) {
      const found = await t.http.get(`/api/v1/advocates?q=${q}`).set(brand.headers);
      expect([q, found.body.data.map((row: { advocate_id: number }) => row.advocate_id)]).toEqual([q, [ids[1]]]);
    }
    expect((await t.http.get(`/api/v1/advocates/${ids[0]}`).set(brand.headers)).body.data.referral_codes).toEqual(['PAGE1']);
    expect((await t.http.get(`/api/v1/advocates/${hidden.advocateId}`).set(brand.headers)).status).toBe(404);
    expect((await t.http.get('/api/v1/advocates?limit=500').set(brand.headers)).body.error).toMatch(/^limit/);
  });

  it('corrects an advocate\'s name or email, and gives them another code; taken ones are 409s and bad fields 400s', async () => {
    const brand = await givenBrand(t.db);
    const ann = await givenAdvocate(t.db, brand.brandId, { email: 'ann@fix.example', first_name: 'Ann', code: 'ANNFIX' });
    const bob = await givenAdvocate(t.db, brand.brandId, { email: 'bob@fix.example', code: 'BOBFIX' });
    const fixed = await t.http.patch(`/api/v1/advocates/${ann.advocateId}`).set(brand.headers).send({ first_name: 'Anne', email: 'anne@fix.example' });
    expect(fixed.body.data).toMatchObject({ first_name: 'Anne', email: 'anne@fix.example', referral_codes: ['ANNFIX'] });
    const taken = await t.http.patch(`/api/v1/advocates/${ann.advocateId}`).set(brand.headers).send({ email: 'BOB@fix.example' });
    expect([taken.status, taken.body.advocate_id]).toEqual([409, bob.advocateId]);
    for (const [body, error] of [[{}, /name at least one/], [{ email: 'nope' }, /^email/], [{ plan: 'premier' }, /plan/]] as const) {
      const refused = await t.http.patch(`/api/v1/advocates/${ann.advocateId}`).set(brand.headers).send(body);
      expect([body, refused.status, refused.body.error]).toEqual([body, 400, expect.stringMatching(error)]);
    }
    const coded = await t.http.post(`/api/v1/advocates/${ann.advocateId}/codes`).set(brand.headers).send({ code: 'ANNE15' });
    expect([coded.status, coded.body.data.referral_codes]).toEqual([201, ['ANNFIX', 'ANNE15']]);
    expect((await t.http.post(`/api/v1/advocates/${ann.advocateId}/codes`).set(brand.headers).send({ code: 'bobfix' })).status).toBe(409);
    expect((await t.http.post(`/api/v1/advocates/${ann.advocateId}/codes`).set(brand.headers).send({ code: 'a b' })).body.error).toMatch(/^code/);
    const coupon = await t.http.post(`/api/v1/advocates/${ann.advocateId}/codes`).set(brand.headers).send({ code: 'SPRING-ANNE', kind: 'coupon' });
    expect(coupon.status).toBe(201);
    // A friend's order with the new code credits Anne.
    const order = await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'f@fix.example', order_id: uniqueOrderId(), order_value: 50, referral_code: 'anne15' });
    expect(order.body.data.advocate_id).toBe(ann.advocateId);
    expect((await t.http.patch('/api/v1/advocates/999999999').set(brand.headers).send({ first_name: 'X' })).status).toBe(404);
  });
});

describe('the program\'s settings over REST', () => {
  it('shows and changes the brand\'s settings; a bad value is a 400 naming it and changes nothing', async () => {
    const brand = await givenBrand(t.db, { referee_discount_type: 'percentage', referee_discount_value: 10 });
    const changed = await t.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_value: 15, referee_min_purchase: 50, language: 'de' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ referee_discount_value: 15, referee_min_purchase: 50, language: 'de' });
    expect((await t.http.get('/api/v1/brand').set(brand.headers)).body.data).toMatchObject({ referee_discount_value: 15, language: 'de' });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ referee_discount_value: 150 }, /^referee_discount_value is a percentage/],
      [{ store_url: 'http://plain.example' }, /^store_url/],
      [{ plan: 'premier' }, /plan/],
      [{ attribution_window_days: 0 }, /^attribution_window_days/],
      [{}, /name at least one setting/],
    ];
    for (const [body, error] of cases) {
      const refused = await t.http.patch('/api/v1/brand').set(brand.headers).send(body);
      expect([body, refused.status, refused.body.error]).toEqual([body, 400, expect.stringMatching(error)]);
    }
    expect((await t.http.get('/api/v1/brand').set(brand.headers)).body.data).toMatchObject({ plan: 'growth', referee_discount_value: 15 });
    const audit = await t.db('audit_log').where({ brand_id: brand.brandId }).first();
    expect(audit).toMatchObject({ actor: `api_key:${brand.keyId}`, action: 'brand.settings' });
    expect(JSON.parse(JSON.stringify(audit.before))).toEqual({ referee_discount_value: 10, referee_min_purchase: null, language: 'en' });
  });

  it('takes an http store address and origin on localhost (a local trial\'s share links work), and only https elsewhere', async () => {
    // Issue 41: the store address had to be https while the origins could be http://localhost, so a local trial's every share link was https://localhost:3812/?ref=….
    const brand = await givenBrand(t.db);
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const local = await t.http.patch('/api/v1/brand').set(brand.headers).send({ store_url: 'http://localhost:3812', allowed_origins: ['http://localhost:3812'] });
    expect([local.status, local.body.data?.store_url]).toEqual([200, 'http://localhost:3812']);
    const shown = await t.http.get(`/api/v1/advocates/${advocate.advocateId}`).set(brand.headers);
    expect(shown.body.data.share_link).toBe(`http://localhost:3812/?ref=${advocate.code}`);
    for (const store_url of ['http://localhost.shop.example', 'http://127.0.0.2:3812', 'ftp://localhost']) {
      const refused = await t.http.patch('/api/v1/brand').set(brand.headers).send({ store_url });
      expect([store_url, refused.status, refused.body.error]).toEqual([store_url, 400, expect.stringMatching(/^store_url.*http only on localhost/)]);
    }
  });

  it('offers free shipping, first purchase only and individual use: a claim takes nothing off the items, the checkout waives the shipping', async () => {
    const brand = await givenBrand(t.db, { plan: 'premier', referee_discount_type: 'percentage', referee_discount_value: 10 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    const changed = await t.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_type: 'free_shipping', referee_discount_value: 0, referee_first_purchase_only: false, referee_individual_use: true });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ referee_discount_type: 'free_shipping', referee_first_purchase_only: false, referee_individual_use: true });
    const claimed = await t.http.post('/api/v1/track/claim').set(brand.headers).send({ referral_code: advocate.code, email: `friend-${uniqueOrderId()}@example.com`, raw_value: 80 });
    expect(claimed.status).toBe(201);
    expect(claimed.body.data).toMatchObject({ discount_applied: 0, claim_value: 80 });
    const refused = await t.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_type: 'shipping' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^referee_discount_type/);
  });

  it('lists what each advocate may be paid and records a payout once per payout id, with their email', async () => {
    const brand = await givenBrand(t.db, { reward_hold_days: 0, reward_value: 20 });
    const advocate = await givenAdvocate(t.db, brand.brandId);
    await t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email: 'buyer@payout.example', order_id: uniqueOrderId(), order_value: 100, referral_code: advocate.code });
    const payable = await t.http.get('/api/v1/payouts').set(brand.headers);
    expect(payable.body.data).toMatchObject({ count: 1, total: 20, currency: 'USD' });
    const [line] = payable.body.data.payouts;
    const paid = { payouts: [{ payout_id: line.payout_id, advocate_id: line.advocate_id, amount: line.amount }] };
    expect((await t.http.post('/api/v1/payouts/mark-paid').set(brand.headers).send(paid)).body.data).toMatchObject({ recorded: 1, already_recorded: 0 });
    expect((await t.http.post('/api/v1/payouts/mark-paid').set(brand.headers).send(paid)).body.data).toMatchObject({ recorded: 0, already_recorded: 1 });
    expect((await t.http.get('/api/v1/payouts').set(brand.headers)).body.data.count).toBe(0);
    const tooMuch = await t.http.post('/api/v1/payouts/mark-paid').set(brand.headers).send({ payouts: [{ payout_id: 'X-1', advocate_id: line.advocate_id, amount: 5 }] });
    expect([tooMuch.status, tooMuch.body.error]).toEqual([400, expect.stringMatching(/^row 1 \(payout_id X-1\): amount 5.00 exceeds/)]);
    expect((await t.http.post('/api/v1/payouts/mark-paid').set(brand.headers).send({ payouts: [] })).body.error).toMatch(/^payouts/);
    expect(await t.db('mail_messages').where({ brand_id: brand.brandId, template: 'reward_paid' })).toHaveLength(1);
  });

  it('creates an API key (shown once), lists keys without it, and revokes one at once', async () => {
    const brand = await givenBrand(t.db);
    const created = await t.http.post('/api/v1/api-keys').set(brand.headers).send({ label: 'storefront backend' });
    expect(created.status).toBe(201);
    const { api_key: key, key_id: keyId } = created.body.data;
    const headers = { 'X-API-Key': key, 'X-Brand-ID': brand.brandId };
    expect((await t.http.get('/api/v1/brand').set(headers)).status).toBe(200);
    const listed = await t.http.get('/api/v1/api-keys').set(brand.headers);
    expect(listed.body.data.map((row: { label: string }) => row.label)).toEqual(['test', 'storefront backend']);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect((await t.http.delete(`/api/v1/api-keys/${keyId}`).set(brand.headers)).status).toBe(200);
    expect((await t.http.get('/api/v1/brand').set(headers)).status).toBe(401);
    expect((await t.http.delete('/api/v1/api-keys/not-a-key').set(brand.headers)).status).toBe(404);
  });
});
