import Router from '@koa/router';
import pino from 'pino';
import supertest from 'supertest';
import { InboxBell, startShopifyInboxWorker } from '../../connectors/shopify/inbox-worker';
import { shopifyRoutes } from '../../connectors/shopify/http-routes';
import { loadShopifySettings } from '../../connectors/shopify/shopify-config';
import { createApp } from '../../server/app';
import { runCli } from '../../server/cli/run-cli';
import { configureConnectors } from '../../server/connectors';
import type { AppContext, AppState, ConnectorParts } from '../../server/http';
import type { TestApp } from '../helpers/test-app';
import { SHOPIFY_API_SECRET, inboxRow, installApp, sendWebhook, setUpShopifyTests } from '../shopify/shopify-test-kit';

const context = setUpShopifyTests();
const silent = pino({ level: 'silent' });

/** An app on the test database whose connectors are exactly these. */
function appWith(connectors: ConnectorParts[]): TestApp {
  const app = createApp({ db: context.app.db, config: context.app.config, logger: silent, connectors });
  return { app, db: context.app.db, config: context.app.config, http: supertest(app.callback()) };
}

/** A connector the server has never heard of: one route, one command. */
const fakeConnector: ConnectorParts = {
  routes() {
    const router = new Router<AppState, AppContext>();
    router.get('/fake/ping', (ctx) => {
      ctx.body = { pong: true };
    });
    return router;
  },
  cliCommands: { 'fake ping': { usage: 'fake ping [--json]', run: async () => ({ pong: true }) } },
};

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('connectors are plugged in through one list', () => {
  it('createApp mounts the routes of the connectors it is given, and only those', async () => {
    const fakeOnly = appWith([fakeConnector]);
    expect((await fakeOnly.http.get('/fake/ping')).body).toEqual({ pong: true });
    expect((await fakeOnly.http.post('/medusa/webhooks').send({})).status).toBe(404);

    const listed = appWith(configureConnectors(process.env));
    expect((await listed.http.get('/fake/ping')).status).toBe(404);
    const medusa = await listed.http.post('/medusa/webhooks').send({});
    expect(medusa.status).toBe(401);
    expect(medusa.body.error).toBe('X-Brand-ID header is required');
    const shopify = await listed.http.get('/shopify/auth');
    expect(shopify.status).toBe(400);
    expect(shopify.body.error).toBe('shop must be a shop domain like example.myshopify.com');
  });

  it('the CLI offers the commands of the connectors it is given, and by default every listed connector\'s', async () => {
    const env = { db: context.app.db, config: context.app.config, isTTY: false, progress: () => undefined };
    const fake = await runCli(['fake', 'ping', '--json'], { ...env, connectors: [fakeConnector] });
    expect(fake).toEqual({ code: 0, stdout: '{"pong":true}\n', stderr: '' });
    expect((await runCli(['--help'], { ...env, connectors: [fakeConnector] })).stdout).not.toContain('shopify reconcile');

    const usage = (await runCli(['--help'], env)).stdout;
    expect(usage).toContain('referrals shopify reconcile --brand ID --since YYYY-MM-DD');
    expect(usage).toContain('referrals brand create');
    expect((await runCli(['fake', 'ping'], env)).stderr).toContain('unknown command "fake ping"');
  });

  it('a malformed connector setting stops the start, naming the connector and the variable', () => {
    const malformed = { ...process.env, SHOPIFY_APP_URL: 'referrals.example.com/app' };
    expect(() => configureConnectors(malformed)).toThrow(
      'shopify connector: SHOPIFY_APP_URL must be the app\'s origin, like https://referrals.example.com (got "referrals.example.com/app")',
    );
    expect(() => configureConnectors({ ...process.env, SHOPIFY_DEFAULT_PLAN: 'gold' })).toThrow(
      'shopify connector: SHOPIFY_DEFAULT_PLAN must be one of starter, growth, premier (got "gold")',
    );
  });
});

describe('the Shopify connector', () => {
  it('uses the settings it was configured with at start-up, not the environment at the time of a request', async () => {
    const app = appWith(configureConnectors({ ...process.env, SHOPIFY_API_SECRET: 'secret-at-start' }));
    const { shop } = await installApp(context.app, context.fake);
    const signedAtStart = await sendWebhook(app, '{}', { topic: 'shop/update', shop, secret: 'secret-at-start' });
    expect(signedAtStart.status).toBe(200);
    // The process's environment, what a read per request would see, holds another secret.
    expect(process.env.SHOPIFY_API_SECRET).toBe(SHOPIFY_API_SECRET);
    expect((await sendWebhook(app, '{}', { topic: 'shop/update', shop, secret: SHOPIFY_API_SECRET })).status).toBe(401);
  });

  it('wakes its inbox worker through the bell it was given: a delivery is processed at once, with no sweep due', async () => {
    const { shop, brandId } = await installApp(context.app, context.fake);
    const bell = new InboxBell();
    const app = appWith([{ routes: () => shopifyRoutes(loadShopifySettings(process.env).app, bell) }]);
    const hourly = { brandId, sweepMs: 3600_000 };
    const worker = startShopifyInboxWorker({ db: context.app.db, config: context.app.config, logger: silent, bell }, hourly);
    try {
      const sent = await sendWebhook(app, '{}', { topic: 'shop/update', shop, webhookId: 'rung' });
      expect(sent.body.data).toEqual({ accepted: true, duplicate: false });
      await waitFor(async () => (await inboxRow(context.app.db, brandId, 'rung'))?.status === 'done');
      expect(await inboxRow(context.app.db, brandId, 'rung')).toMatchObject({ outcome: 'ignored: topic shop/update is not handled' });
    } finally {
      await worker.stop();
    }
  });
});
