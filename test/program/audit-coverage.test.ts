import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'supertest';
import { apiRoutes } from '../../server/api-routes';
import { commandsOf, runCli } from '../../server/cli/run-cli';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { csrfTokenOf, signedInAgent } from '../dashboard/dashboard-helpers';
import { type TestBrand, givenAdvocate, givenBrand, uniqueOrderId } from '../helpers/fixtures';
import { scratchDir } from '../helpers/scratch-space';
import { type TestApp, startTestApp } from '../helpers/test-app';
import { type Receiver, startReceiver } from '../webhooks/receiver';

/**
 * Issue 39, finding 5: the audit log missed changes — webhook endpoints added, removed or tested,
 * email templates rewritten or switched over REST, rewards approved or voided over REST, and every
 * CLI change but `user invite`. Here every mutating /api/v1 route (read from the router) and every
 * CLI command (read from the CLI's table) is run once and its audit row looked for: who, what,
 * only the fields that moved, and never a secret. A route or command not in these tables fails.
 */

const SETTINGS: WebhookSettings = { allowPrivate: true, timeoutMs: 2_000, workerIntervalMs: 60_000, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };
const OPERATOR = 'operator (CLI)';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestApp({ webhooks: SETTINGS, publicUrl: 'http://127.0.0.1' });
});
afterAll(() => receiver.close());

/** A brand with something of each kind to change: an advocate, a pending reward, an open review, an endpoint with a delivery, a second key, a failed email. */
interface World {
  brand: TestBrand;
  advocateId: number;
  rewardId: number;
  reviewId: number;
  endpointId: string;
  deliveryId: number;
  otherKeyId: string;
  messageId: number;
}

async function ok(response: Response | Promise<Response>): Promise<Response> {
  const answered = await response;
  if (answered.status >= 300) throw new Error(`${answered.status}: ${JSON.stringify(answered.body)}`);
  return answered;
}

async function givenWorld(): Promise<World> {
  const brand = await givenBrand(t.db, { plan: 'growth', reward_type: 'fixed', reward_value: 10 });
  const advocate = await givenAdvocate(t.db, brand.brandId);
  const order = (email: string) => ok(t.http.post('/api/v1/track/conversion').set(brand.headers).send({ email, order_id: uniqueOrderId(), order_value: 100, referral_code: advocate.code }));
  const paid = await order('buyer@example.com');
  const rewardId = Number((await t.db('rewards').where({ brand_id: brand.brandId, conversion_id: paid.body.data.id }).first()).reward_id);
  const held = await order('someone@mailinator.com');
  const endpoint = await ok(t.http.post('/api/v1/webhook-endpoints').set(brand.headers).send({ url: receiver.url }));
  const tested = await ok(t.http.post(`/api/v1/webhook-endpoints/${endpoint.body.data.id}/test`).set(brand.headers));
  const otherKey = await ok(t.http.post('/api/v1/api-keys').set(brand.headers).send({ label: 'spare' }));
  const welcomed = await ok(t.http.post('/api/v1/advocates').set(brand.headers).send({ email: `welcome-${uniqueOrderId()}@example.com`, first_name: 'Wil' }));
  const message = await t.db('mail_messages').where({ brand_id: brand.brandId, advocate_id: welcomed.body.data.advocate_id }).first();
  await t.db('mail_messages').where({ message_id: message.message_id }).update({ status: 'failed' });
  return {
    brand,
    advocateId: advocate.advocateId,
    rewardId,
    reviewId: held.body.data.review.review_id,
    endpointId: endpoint.body.data.id,
    deliveryId: tested.body.data.id,
    otherKeyId: otherKey.body.data.key_id,
    messageId: Number(message.message_id),
  };
}

interface AuditRow {
  actor: string;
  action: string;
  subject: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

const lastEntryId = async () => Number((await t.db('audit_log').max('entry_id as id').first())?.id ?? 0);

async function entriesSince(brandId: string, since: number): Promise<AuditRow[]> {
  const rows = await t.db('audit_log').where({ brand_id: brandId }).andWhere('entry_id', '>', since).orderBy('entry_id').select('actor', 'action', 'subject', 'before', 'after');
  const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
  return rows.map((row) => ({ ...row, before: json(row.before), after: json(row.after) }));
}

/** No API key (rk_/pk_ and its 43 characters: the 10-character prefix may be shown) and no webhook signing secret. */
function expectNoSecrets(entries: AuditRow[]): void {
  const text = JSON.stringify(entries);
  expect(text).not.toMatch(/\b(rk|pk)_[A-Za-z0-9_-]{20,}/);
  expect(text).not.toMatch(/whsec_/);
}

/** A change that must leave these audit entries (in any order, among others). */
interface Audited {
  prepare?: (w: World) => Promise<unknown>;
  /** Runs the change; returns the brand it changed when it is not the world's (a brand created). */
  run: (w: World) => Promise<string | void>;
  entries: (w: World) => Array<Partial<AuditRow>>;
}
type Case = Audited | { exempt: string };

const api = (method: 'post' | 'patch' | 'put' | 'delete', url: string, body?: object) => async (w: World) => {
  await ok(t.http[method](url).set(w.brand.headers).send(body ?? {}));
};
const byKey = (w: World) => `api_key:${w.brand.keyId}`;

/** The default words of a template (a PUT sends a full text). */
async function currentText(w: World, template: string): Promise<{ subject: string; body: string }> {
  const listed = await ok(t.http.get('/api/v1/email-templates').set(w.brand.headers));
  return listed.body.data.find((view: { template: string }) => view.template === template);
}

async function approveAndListPayouts(w: World) {
  await ok(t.http.post(`/api/v1/rewards/${w.rewardId}/approve`).set(w.brand.headers).send({}));
  return (await ok(t.http.get('/api/v1/payouts').set(w.brand.headers))).body.data.payouts as Array<{ payout_id: string; advocate_id: number; amount: number }>;
}

const INGEST = 'a shopper or platform event (an order, a refund, a visit, a claim, a join), not a merchant changing their program';

const API_CASES: Record<string, Case> = {
  'POST /api/v1/track/conversion': { exempt: INGEST },
  'POST /api/v1/track/refund': { exempt: INGEST },
  'POST /api/v1/track/visit': { exempt: INGEST },
  'POST /api/v1/advocates/join': { exempt: INGEST },
  'POST /api/v1/track/claim': { exempt: INGEST },
  'POST /api/v1/track/check-eligibility': { exempt: 'a question about a customer: it changes nothing' },
  'POST /api/v1/convert': { exempt: INGEST },
  'POST /api/v1/rewards/:id/approve': {
    run: (w) => api('post', `/api/v1/rewards/${w.rewardId}/approve`, { reason: 'checked' })(w),
    entries: (w) => [{ actor: byKey(w), action: 'reward.approve', subject: `reward:${w.rewardId}`, before: { status: 'pending' }, after: { status: 'approved', reason: 'checked' } }],
  },
  'POST /api/v1/rewards/:id/void': {
    run: (w) => api('post', `/api/v1/rewards/${w.rewardId}/void`, { reason: 'duplicate order' })(w),
    entries: (w) => [{ actor: byKey(w), action: 'reward.void', subject: `reward:${w.rewardId}`, before: { status: 'pending' }, after: { status: 'voided', reason: 'duplicate order' } }],
  },
  'POST /api/v1/reviews/:id/approve': {
    run: (w) => api('post', `/api/v1/reviews/${w.reviewId}/approve`, { note: 'known customer' })(w),
    entries: (w) => [{ actor: byKey(w), action: 'review.approve', subject: `review:${w.reviewId}`, before: { status: 'open' }, after: { status: 'approved', decided_by: 'api', note: 'known customer' } }],
  },
  'POST /api/v1/reviews/:id/reject': {
    run: (w) => api('post', `/api/v1/reviews/${w.reviewId}/reject`, { reason: 'fake account' })(w),
    entries: (w) => [{ actor: byKey(w), action: 'review.reject', subject: `review:${w.reviewId}`, before: { status: 'open' }, after: { status: 'rejected', decided_by: 'api', note: 'fake account' } }],
  },
  'POST /api/v1/webhook-endpoints': {
    run: api('post', '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/new-hook', events: ['conversion.created'], description: 'ERP' }),
    entries: (w) => [{ actor: byKey(w), action: 'webhook_endpoint.create', before: null, after: { url: 'http://127.0.0.1:9/new-hook', events: ['conversion.created'], description: 'ERP' } }],
  },
  'DELETE /api/v1/webhook-endpoints/:id': {
    run: (w) => api('delete', `/api/v1/webhook-endpoints/${w.endpointId}`)(w),
    entries: (w) => [{ actor: byKey(w), action: 'webhook_endpoint.remove', subject: `webhook_endpoint:${w.endpointId}`, before: { url: receiver.url, events: null, description: null }, after: null }],
  },
  'POST /api/v1/webhook-endpoints/:id/enable': {
    prepare: (w) => t.db('webhook_endpoints').where({ endpoint_id: w.endpointId }).update({ status: 'disabled', disabled_reason: 'failing for 5 days', disabled_at: t.db.fn.now(), consecutive_failures: 50 }),
    run: (w) => api('post', `/api/v1/webhook-endpoints/${w.endpointId}/enable`)(w),
    entries: (w) => [{
      actor: byKey(w),
      action: 'webhook_endpoint.enable',
      subject: `webhook_endpoint:${w.endpointId}`,
      before: { status: 'disabled', disabled_reason: 'failing for 5 days', consecutive_failures: 50 },
      after: { status: 'active', disabled_reason: null, consecutive_failures: 0 },
    }],
  },
  'POST /api/v1/webhook-endpoints/:id/test': {
    run: (w) => api('post', `/api/v1/webhook-endpoints/${w.endpointId}/test`)(w),
    entries: (w) => [{ actor: byKey(w), action: 'webhook_endpoint.test', subject: `webhook_endpoint:${w.endpointId}`, before: null }],
  },
  'POST /api/v1/webhook-deliveries/:id/replay': {
    run: (w) => api('post', `/api/v1/webhook-deliveries/${w.deliveryId}/replay`)(w),
    entries: (w) => [{ actor: byKey(w), action: 'webhook_delivery.replay', subject: `webhook_endpoint:${w.endpointId}`, before: null, after: expect.objectContaining({ replay_of: w.deliveryId }) }],
  },
  'PUT /api/v1/email-templates/:template': {
    run: async (w) => api('put', '/api/v1/email-templates/reward_earned', { subject: 'You earned {{amount}}', body: (await currentText(w, 'reward_earned')).body })(w),
    entries: (w) => [{ actor: byKey(w), action: 'email_template.update', subject: 'email_template:reward_earned', before: { subject: expect.any(String) }, after: { subject: 'You earned {{amount}}' } }],
  },
  'PATCH /api/v1/email-templates/:template': {
    run: api('patch', '/api/v1/email-templates/reward_earned', { enabled: false }),
    entries: (w) => [{ actor: byKey(w), action: 'email_template.update', subject: 'email_template:reward_earned', before: { enabled: true }, after: { enabled: false } }],
  },
  'DELETE /api/v1/email-templates/:template': {
    prepare: (w) => api('patch', '/api/v1/email-templates/friend_offer', { subject: 'A gift from {{advocate_first_name}}' })(w),
    run: api('delete', '/api/v1/email-templates/friend_offer'),
    entries: (w) => [{ actor: byKey(w), action: 'email_template.reset', subject: 'email_template:friend_offer', before: { subject: 'A gift from {{advocate_first_name}}' }, after: { subject: expect.any(String) } }],
  },
  'POST /api/v1/advocates': {
    run: api('post', '/api/v1/advocates', { email: 'new-advocate@example.com', first_name: 'Nia' }),
    entries: (w) => [{ actor: byKey(w), action: 'advocate.create' }],
  },
  'PATCH /api/v1/advocates/:id': {
    run: (w) => api('patch', `/api/v1/advocates/${w.advocateId}`, { first_name: 'Anna' })(w),
    entries: (w) => [{ actor: byKey(w), action: 'advocate.update', subject: `advocate:${w.advocateId}`, before: { first_name: 'Ann' }, after: { first_name: 'Anna' } }],
  },
  'POST /api/v1/advocates/:id/codes': {
    run: (w) => api('post', `/api/v1/advocates/${w.advocateId}/codes`, { code: `EXTRA${w.advocateId}` })(w),
    entries: (w) => [{ actor: byKey(w), action: 'advocate.add_code', subject: `advocate:${w.advocateId}` }],
  },
  'POST /api/v1/advocates/:id/deactivate': {
    run: (w) => api('post', `/api/v1/advocates/${w.advocateId}/deactivate`)(w),
    entries: (w) => [{ actor: byKey(w), action: 'advocate.deactivate', before: { status: 'active' }, after: { status: 'deactivated' } }],
  },
  'POST /api/v1/advocates/:id/reactivate': {
    prepare: (w) => api('post', `/api/v1/advocates/${w.advocateId}/deactivate`)(w),
    run: (w) => api('post', `/api/v1/advocates/${w.advocateId}/reactivate`)(w),
    entries: (w) => [{ actor: byKey(w), action: 'advocate.reactivate', before: { status: 'deactivated' }, after: { status: 'active' } }],
  },
  'PATCH /api/v1/brand': {
    run: api('patch', '/api/v1/brand', { reward_value: 12 }),
    entries: (w) => [{ actor: byKey(w), action: 'brand.settings', subject: 'brand', before: { reward_value: 10 }, after: { reward_value: 12 } }],
  },
  'POST /api/v1/payouts/mark-paid': {
    run: async (w) => api('post', '/api/v1/payouts/mark-paid', { payouts: await approveAndListPayouts(w) })(w),
    entries: (w) => [{ actor: byKey(w), action: 'payouts.mark_paid', after: expect.objectContaining({ recorded: 1 }) }],
  },
  'POST /api/v1/api-keys': {
    run: api('post', '/api/v1/api-keys', { label: 'erp' }),
    entries: (w) => [{ actor: byKey(w), action: 'api_key.create', after: expect.objectContaining({ label: 'erp' }) }],
  },
  'DELETE /api/v1/api-keys/:id': {
    run: (w) => api('delete', `/api/v1/api-keys/${w.otherKeyId}`)(w),
    entries: (w) => [{ actor: byKey(w), action: 'api_key.revoke', subject: `api_key:${w.otherKeyId}` }],
  },
};

async function cli(...argv: string[]): Promise<Record<string, unknown>> {
  const output = await runCli([...argv, '--json'], { db: t.db, config: t.config, isTTY: false, progress: () => undefined, connectors: [] });
  if (output.code !== 0) throw new Error(`referrals ${argv.join(' ')}: ${output.stderr}`);
  return JSON.parse(output.stdout);
}
const command = (...argv: Array<string | ((w: World) => string)>) => async (w: World) => {
  await cli(...argv.map((arg) => (typeof arg === 'function' ? arg(w) : arg)));
};
const brandOf = (w: World) => w.brand.brandId;
const READS = 'reads only';

const CLI_CASES: Record<string, Case> = {
  'dashboard login': { exempt: 'a one-time sign-in link, not a change; what is done with it is recorded as `operator (CLI sign-in link)`' },
  migrate: { exempt: 'the database schema, no brand\'s program' },
  'brand create': {
    run: async () => (await cli('brand', 'create', '--name', 'Audited', '--plan', 'growth')).brand_id as string,
    entries: () => [
      { actor: OPERATOR, action: 'brand.create', subject: 'brand', before: null, after: expect.objectContaining({ name: 'Audited', plan: 'growth' }) },
      { actor: OPERATOR, action: 'api_key.create', after: expect.objectContaining({ label: 'initial' }) },
    ],
  },
  'brand list': { exempt: READS },
  'brand show': { exempt: READS },
  'brand settings': {
    run: command('brand', 'settings', '--brand', brandOf, '--reward-value', '12'),
    entries: () => [{ actor: OPERATOR, action: 'brand.settings', before: { reward_value: 10 }, after: { reward_value: 12 } }],
  },
  'key create': {
    run: command('key', 'create', '--brand', brandOf, '--label', 'cli key'),
    entries: () => [{ actor: OPERATOR, action: 'api_key.create', after: expect.objectContaining({ label: 'cli key', kind: 'secret' }) }],
  },
  'key list': { exempt: READS },
  'key revoke': {
    run: command('key', 'revoke', '--brand', brandOf, '--key', (w) => w.otherKeyId),
    entries: (w) => [{ actor: OPERATOR, action: 'api_key.revoke', subject: `api_key:${w.otherKeyId}` }],
  },
  'advocate create': {
    run: command('advocate', 'create', '--brand', brandOf, '--email', 'cli-advocate@example.com', '--first-name', 'Cleo'),
    entries: () => [{ actor: OPERATOR, action: 'advocate.create', after: expect.objectContaining({ email: 'cli-advocate@example.com' }) }],
  },
  'advocate list': { exempt: READS },
  'advocate add-code': {
    run: command('advocate', 'add-code', '--brand', brandOf, '--advocate', (w) => String(w.advocateId), '--code', 'CLICODE'),
    entries: (w) => [{ actor: OPERATOR, action: 'advocate.add_code', subject: `advocate:${w.advocateId}` }],
  },
  'advocate deactivate': {
    run: command('advocate', 'deactivate', '--brand', brandOf, '--advocate', (w) => String(w.advocateId)),
    entries: (w) => [{ actor: OPERATOR, action: 'advocate.deactivate', subject: `advocate:${w.advocateId}` }],
  },
  'advocate reactivate': {
    prepare: command('advocate', 'deactivate', '--brand', brandOf, '--advocate', (w) => String(w.advocateId)),
    run: command('advocate', 'reactivate', '--brand', brandOf, '--advocate', (w) => String(w.advocateId)),
    entries: (w) => [{ actor: OPERATOR, action: 'advocate.reactivate', subject: `advocate:${w.advocateId}` }],
  },
  'advocate balance': { exempt: READS },
  'review list': { exempt: READS },
  'review approve': {
    run: command('review', 'approve', '--brand', brandOf, '--review', (w) => String(w.reviewId), '--by', 'lee'),
    entries: (w) => [{ actor: OPERATOR, action: 'review.approve', subject: `review:${w.reviewId}`, after: { status: 'approved', decided_by: 'lee', note: null } }],
  },
  'review reject': {
    run: command('review', 'reject', '--brand', brandOf, '--review', (w) => String(w.reviewId), '--reason', 'fake'),
    entries: (w) => [{ actor: OPERATOR, action: 'review.reject', subject: `review:${w.reviewId}` }],
  },
  'rewards approve-due': { exempt: 'the scheduled approval of every brand\'s rewards whose hold ended: no one\'s change (the ledger records it as `system`)' },
  'rewards approve': {
    run: command('rewards', 'approve', '--brand', brandOf, '--reward', (w) => String(w.rewardId)),
    entries: (w) => [{ actor: OPERATOR, action: 'reward.approve', subject: `reward:${w.rewardId}`, before: { status: 'pending' }, after: { status: 'approved' } }],
  },
  'rewards void': {
    run: command('rewards', 'void', '--brand', brandOf, '--reward', (w) => String(w.rewardId), '--reason', 'test order'),
    entries: (w) => [{ actor: OPERATOR, action: 'reward.void', subject: `reward:${w.rewardId}` }],
  },
  'rewards list': { exempt: READS },
  'payouts export': { exempt: READS },
  'payouts mark-paid': {
    run: async (w) => {
      const payouts = await approveAndListPayouts(w);
      const file = path.join(scratchDir('audit-payouts'), 'paid.csv');
      fs.writeFileSync(file, ['payout_id,advocate_id,amount', ...payouts.map((p) => `${p.payout_id},${p.advocate_id},${p.amount}`)].join('\n'));
      await cli('payouts', 'mark-paid', '--brand', w.brand.brandId, '--file', file);
    },
    entries: () => [{ actor: OPERATOR, action: 'payouts.mark_paid' }],
  },
  'webhook add': {
    run: command('webhook', 'add', '--brand', brandOf, '--url', 'http://127.0.0.1:9/cli-hook'),
    entries: () => [{ actor: OPERATOR, action: 'webhook_endpoint.create', after: { url: 'http://127.0.0.1:9/cli-hook', events: null, description: null } }],
  },
  'webhook list': { exempt: READS },
  'webhook remove': {
    run: command('webhook', 'remove', '--brand', brandOf, '--endpoint', (w) => w.endpointId),
    entries: (w) => [{ actor: OPERATOR, action: 'webhook_endpoint.remove', subject: `webhook_endpoint:${w.endpointId}` }],
  },
  'webhook enable': {
    prepare: (w) => t.db('webhook_endpoints').where({ endpoint_id: w.endpointId }).update({ status: 'disabled', disabled_reason: 'failing', disabled_at: t.db.fn.now() }),
    run: command('webhook', 'enable', '--brand', brandOf, '--endpoint', (w) => w.endpointId),
    entries: (w) => [{ actor: OPERATOR, action: 'webhook_endpoint.enable', subject: `webhook_endpoint:${w.endpointId}` }],
  },
  'webhook test': {
    run: command('webhook', 'test', '--brand', brandOf, '--endpoint', (w) => w.endpointId),
    entries: (w) => [{ actor: OPERATOR, action: 'webhook_endpoint.test', subject: `webhook_endpoint:${w.endpointId}` }],
  },
  'webhook replay': {
    run: command('webhook', 'replay', '--brand', brandOf, '--delivery', (w) => String(w.deliveryId)),
    entries: (w) => [{ actor: OPERATOR, action: 'webhook_delivery.replay', subject: `webhook_endpoint:${w.endpointId}` }],
  },
  'webhook deliveries': { exempt: READS },
  'mail list': { exempt: READS },
  'mail preview': { exempt: READS },
  'mail template': {
    run: command('mail', 'template', '--brand', brandOf, '--template', 'reward_paid', '--subject', 'Paid: {{amount}}'),
    entries: () => [{ actor: OPERATOR, action: 'email_template.update', subject: 'email_template:reward_paid', before: { subject: expect.any(String) }, after: { subject: 'Paid: {{amount}}' } }],
  },
  'mail retry': {
    run: command('mail', 'retry', '--brand', brandOf, '--message', (w) => String(w.messageId)),
    entries: (w) => [{ actor: OPERATOR, action: 'mail.retry', subject: `mail:${w.messageId}`, before: { status: 'failed' }, after: { status: 'queued' } }],
  },
  'user invite': {
    run: command('user', 'invite', '--brand', brandOf, '--email', 'teammate@example.com', '--role', 'admin'),
    entries: () => [{ actor: OPERATOR, action: 'user.invite' }],
  },
  'user list': { exempt: READS },
  'user role': {
    prepare: command('user', 'invite', '--brand', brandOf, '--email', 'promoted@example.com', '--role', 'viewer'),
    run: async (w) => {
      const user = await t.db('merchant_users').where({ brand_id: w.brand.brandId, email: 'promoted@example.com' }).first();
      await cli('user', 'role', '--brand', w.brand.brandId, '--user', String(user.user_id), '--role', 'admin');
    },
    entries: () => [{ actor: OPERATOR, action: 'user.role', before: { email: 'promoted@example.com', role: 'viewer' }, after: { email: 'promoted@example.com', role: 'admin' } }],
  },
  'user remove': {
    prepare: command('user', 'invite', '--brand', brandOf, '--email', 'leaving@example.com', '--role', 'viewer'),
    run: async (w) => {
      const user = await t.db('merchant_users').where({ brand_id: w.brand.brandId, email: 'leaving@example.com' }).first();
      await cli('user', 'remove', '--brand', w.brand.brandId, '--user', String(user.user_id));
    },
    entries: () => [{ actor: OPERATOR, action: 'user.remove' }],
  },
};

/** Runs a change on a fresh world and finds its audit entries, with no secret among them. */
async function expectAudited(change: Audited): Promise<void> {
  const world = await givenWorld();
  await change.prepare?.(world);
  const since = await lastEntryId();
  const changed = (await change.run(world)) ?? world.brand.brandId;
  const entries = await entriesSince(changed, since);
  expect(entries).toEqual(expect.arrayContaining(change.entries(world).map((entry) => expect.objectContaining(entry))));
  expectNoSecrets(entries);
}

const audited = (cases: Record<string, Case>) => Object.entries(cases).filter((entry): entry is [string, Audited] => !('exempt' in entry[1]));

describe('the audit log records every merchant change, whoever makes it', () => {
  it('has a row in the table for every non-GET /api/v1 route (a new route must say how it is audited, or why not)', () => {
    const routes = apiRoutes()
      .stack.flatMap((layer) => layer.methods.filter((method) => !['GET', 'HEAD', 'OPTIONS'].includes(method)).map((method) => `${method} ${layer.path}`))
      .sort();
    expect(Object.keys(API_CASES).sort()).toEqual(routes);
  });

  it('has a row in the table for every CLI command (a new command must say how it is audited, or why not)', () => {
    expect(Object.keys(CLI_CASES).sort()).toEqual(Object.keys(commandsOf([])).sort());
  });

  it.each(audited(API_CASES))('REST: %s is recorded with its API key as the actor, only the fields that moved, and no secret', async (_route, change) => {
    await expectAudited(change);
  });

  it.each(audited(CLI_CASES))('CLI: referrals %s is recorded as the operator, with no secret', async (_command, change) => {
    await expectAudited(change);
  });

  it('records the dashboard\'s webhook forms (add, test, enable, remove) with who signed in, and never the signing secret', async () => {
    const world = await givenWorld();
    const since = await lastEntryId();
    const agent = await signedInAgent(t.app, t.db, world.brand.brandId);
    const csrf = csrfTokenOf((await agent.get('/dashboard/connections')).text);
    const added = await agent.post('/dashboard/connections/webhooks').type('form').send({ csrf_token: csrf, url: 'http://127.0.0.1:9/form-hook', description: 'CRM' });
    expect(added.status).toBe(303);
    const endpointId = (await t.db('webhook_endpoints').where({ brand_id: world.brand.brandId, url: 'http://127.0.0.1:9/form-hook' }).first()).endpoint_id;
    await t.db('webhook_endpoints').where({ endpoint_id: endpointId }).update({ status: 'disabled', disabled_reason: 'failing', disabled_at: t.db.fn.now() });
    for (const action of ['test', 'enable', 'remove']) {
      const posted = await agent.post(`/dashboard/connections/webhooks/${endpointId}/${action}`).type('form').send({ csrf_token: csrf, confirm: 'yes' });
      expect([action, posted.status]).toEqual([action, 303]);
    }
    const entries = await entriesSince(world.brand.brandId, since);
    const actor = 'operator (CLI sign-in link)';
    expect(entries.filter((entry) => entry.subject === `webhook_endpoint:${endpointId}`)).toEqual([
      expect.objectContaining({ actor, action: 'webhook_endpoint.create', after: { url: 'http://127.0.0.1:9/form-hook', events: null, description: 'CRM' } }),
      expect.objectContaining({ actor, action: 'webhook_endpoint.test' }),
      expect.objectContaining({ actor, action: 'webhook_endpoint.enable' }),
      expect.objectContaining({ actor, action: 'webhook_endpoint.remove' }),
    ]);
    expectNoSecrets(entries);
  });
});
