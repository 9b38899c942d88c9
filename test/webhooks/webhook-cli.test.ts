import { Webhook } from 'standardwebhooks';
import { runCli } from '../../server/cli/run-cli';
import type { WebhookSettings } from '../../server/webhooks/webhook-settings';
import { givenBrand } from '../helpers/fixtures';
import { type RealPostgres, realPostgres } from '../helpers/real-postgres';
import { testConfig } from '../helpers/test-app';
import { type Receiver, startReceiver } from './receiver';

const SETTINGS: WebhookSettings = { allowPrivate: true, timeoutMs: 2_000, workerIntervalMs: 50, retryScale: 0.001, disableAfterFailures: 50, disableAfterDays: 5 };

let postgres: RealPostgres;
let receiver: Receiver;
beforeAll(async () => {
  postgres = await realPostgres();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await postgres.close();
});

function cli(settings: WebhookSettings, ...argv: string[]) {
  return runCli(argv, { db: postgres.db, config: testConfig({ webhooks: settings }), isTTY: false, progress: () => undefined });
}

describe('referrals webhook …', () => {
  it('adds an endpoint (secret printed once), tests it, lists it and its deliveries, replays one and removes it', async () => {
    const { brandId } = await givenBrand(postgres.db);
    const added = await cli(SETTINGS, 'webhook', 'add', '--brand', brandId, '--url', receiver.url, '--events', 'claim.created,conversion.refunded', '--json');
    expect(added.code).toBe(0);
    const { endpoint_id, secret, endpoint } = JSON.parse(added.stdout);
    expect(endpoint_id).toMatch(/^ep_[0-9a-f]{32}$/);
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ id: endpoint_id, url: receiver.url, events: ['claim.created', 'conversion.refunded'], status: 'active' });
    expect(endpoint).not.toHaveProperty('secret');

    const tested = await cli(SETTINGS, 'webhook', 'test', '--brand', brandId, '--endpoint', endpoint_id, '--json');
    expect(JSON.parse(tested.stdout)).toMatchObject({ delivered: true, delivery: { status: 'delivered', event_type: 'webhook.test', last_response_status: 200 } });
    expect(new Webhook(secret).verify(receiver.received.at(-1)!.body, receiver.received.at(-1)!.headers)).toMatchObject({ type: 'webhook.test' });

    const listed = await cli(SETTINGS, 'webhook', 'list', '--brand', brandId, '--json');
    expect(JSON.parse(listed.stdout).endpoints).toEqual([expect.objectContaining({ id: endpoint_id, status: 'active', disabled_reason: null })]);
    expect(listed.stdout).not.toContain(secret.slice(6));

    const log = JSON.parse((await cli(SETTINGS, 'webhook', 'deliveries', '--brand', brandId, '--endpoint', endpoint_id, '--json')).stdout).deliveries;
    expect(log).toHaveLength(1);
    const replayed = await cli(SETTINGS, 'webhook', 'replay', '--brand', brandId, '--delivery', String(log[0].id), '--json');
    expect(JSON.parse(replayed.stdout).delivery).toMatchObject({ status: 'pending', event_id: log[0].event_id, replay_of: log[0].id });
    expect(JSON.parse((await cli(SETTINGS, 'webhook', 'deliveries', '--brand', brandId, '--json')).stdout).deliveries).toHaveLength(2);

    const removed = await cli(SETTINGS, 'webhook', 'remove', '--brand', brandId, '--endpoint', endpoint_id, '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ id: endpoint_id, removed: true });
    expect(JSON.parse((await cli(SETTINGS, 'webhook', 'list', '--brand', brandId, '--json')).stdout).endpoints).toEqual([]);
  });

  it('prints the secret in human output too, and says it is shown once', async () => {
    const { brandId } = await givenBrand(postgres.db);
    const added = await cli(SETTINGS, 'webhook', 'add', '--brand', brandId, '--url', 'https://hooks.example.com/x');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^secret: whsec_\S+$/m);
    expect(added.stdout).toContain('note: the signing secret is shown only this once');
  });

  it('refuses a bad event name, a non-http URL and a private address, naming the flag', async () => {
    const { brandId } = await givenBrand(postgres.db);
    const badEvent = await cli(SETTINGS, 'webhook', 'add', '--brand', brandId, '--url', 'https://example.com/', '--events', 'claim.created,order.paid');
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toContain('error: --events.1: must be one of claim.created, conversion.created');
    const ftp = await cli(SETTINGS, 'webhook', 'add', '--brand', brandId, '--url', 'ftp://example.com/');
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toBe('error: url must use http or https, not ftp\n');
    const strict = await cli({ ...SETTINGS, allowPrivate: false }, 'webhook', 'add', '--brand', brandId, '--url', 'http://192.168.1.10/hook');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/^error: url points at a private, loopback or reserved address \(192\.168\.1\.10\)/);
    expect(await postgres.db('webhook_endpoints').where({ brand_id: brandId })).toHaveLength(0);
  });

  it("re-enables a disabled endpoint and answers not found for another brand's", async () => {
    const { brandId } = await givenBrand(postgres.db);
    const other = await givenBrand(postgres.db);
    const { endpoint_id } = JSON.parse((await cli(SETTINGS, 'webhook', 'add', '--brand', brandId, '--url', receiver.url, '--json')).stdout);
    await postgres.db('webhook_endpoints').where({ brand_id: brandId, endpoint_id }).update({ status: 'disabled', disabled_reason: 'disabled after 50 consecutive failed attempts', disabled_at: postgres.db.fn.now() });
    const listed = JSON.parse((await cli(SETTINGS, 'webhook', 'list', '--brand', brandId, '--json')).stdout).endpoints;
    expect(listed[0]).toMatchObject({ status: 'disabled', disabled_reason: 'disabled after 50 consecutive failed attempts' });
    const enabled = await cli(SETTINGS, 'webhook', 'enable', '--brand', brandId, '--endpoint', endpoint_id, '--json');
    expect(JSON.parse(enabled.stdout).endpoint).toMatchObject({ status: 'active', disabled_reason: null });
    const foreign = await cli(SETTINGS, 'webhook', 'test', '--brand', other.brandId, '--endpoint', endpoint_id);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(`error: webhook endpoint ${endpoint_id} not found\n`);
  });
});
