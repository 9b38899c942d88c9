import fs from 'node:fs';
import path from 'node:path';
import { asValue } from '@medusajs/framework/awilix';
import { SubscriberLoader } from '@medusajs/framework/subscribers';
import type { MedusaContainer } from '@medusajs/framework/types';
import { Modules } from '@medusajs/framework/utils';
import { PLUGIN_DIR, buildPlugin } from './plugin-package';

const pluginDir = PLUGIN_DIR;
const subscribersDir = path.join(pluginDir, '.medusa/server/src/subscribers');

/**
 * The container Medusa hands every subscriber. Its module is not a public export (the framework's
 * root needs ioredis at run time), so it is read from beside the subscribers module.
 */
function medusaContainer(): MedusaContainer {
  const containerModule = path.join(path.dirname(require.resolve('@medusajs/framework/subscribers')), '../container');
  return require(containerModule).container;
}

describe('the Medusa plugin build', () => {
  beforeAll(() => buildPlugin(), 240_000);

  it('compiles with one command into .medusa/server/src, where Medusa loads a plugin’s subscribers from', () => {
    expect(fs.readdirSync(subscribersDir).sort()).toEqual(['order-canceled.js', 'order-placed.js', 'payment-captured.js', 'payment-refunded.js']);
  });

  it('is loaded by Medusa’s own subscriber loader, which registers the four events', async () => {
    const subscriptions: Array<{ event: string; context: { subscriberId?: string } }> = [];
    const container = medusaContainer();
    container.register(Modules.EVENT_BUS, asValue({ subscribe: (event: string, _handler: never, context: never) => subscriptions.push({ event, context }) }));
    container.register('logger', asValue({ info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined }));

    await new SubscriberLoader(subscribersDir, {}, container).load();

    expect(subscriptions.map(({ event, context }) => [event, context.subscriberId]).sort()).toEqual([
      ['order.canceled', 'referrals-order-canceled'],
      ['order.placed', 'referrals-order-placed'],
      ['payment.captured', 'referrals-payment-captured'],
      ['payment.refunded', 'referrals-payment-refunded'],
    ]);
  });

  it('ships a module named referrals (where Medusa hands the plugin options), its migrations, the re-sending job, the promotion sync job and the reward codes job', async () => {
    const built = path.join(pluginDir, '.medusa/server/src');
    const module = require(path.join(built, 'modules/referrals/index.js')).default;
    expect(module.service.name).toBe('ReferralsModuleService');
    await expect(module.loaders[0]({ options: { serviceUrl: 'https://referrals.example.com' } })).rejects.toThrow('referral plugin option brandId is required');
    expect(fs.readdirSync(path.join(built, 'modules/referrals/migrations')).filter((file) => file.endsWith('.js'))).toEqual(['Migration20261123170000.js', 'Migration20261214120000.js']);
    expect(require(path.join(built, 'jobs/send-pending-referral-deliveries.js')).config).toMatchObject({ name: 'referrals-send-pending-deliveries' });
    expect(require(path.join(built, 'jobs/sync-referral-promotions.js')).config).toMatchObject({ name: 'referrals-sync-promotions', schedule: { interval: 60_000 } });
    expect(require(path.join(built, 'jobs/issue-reward-codes.js')).config).toMatchObject({ name: 'referrals-issue-reward-codes', schedule: { interval: 10_000 } });
  });

  it('serves its admin and store routes where Medusa’s file-based router puts them, the admin ones behind Medusa’s admin authentication', async () => {
    // Medusa's own route scanner (not a public export): [id] folders become :id, and /admin routes are authenticated unless they opt out.
    const { RoutesLoader } = require(path.join(path.dirname(require.resolve('@medusajs/framework/http')), 'routes-loader'));
    const loader = new RoutesLoader();
    await loader.scanDir(path.join(pluginDir, '.medusa/server/src/api'));
    const routes = loader.getRoutes().map((route: { method: string; matcher: string; optedOutOfAuth: boolean; shouldAppendAdminCors: boolean }) => [
      route.method,
      route.matcher,
      route.optedOutOfAuth,
      route.shouldAppendAdminCors,
    ]);
    expect(routes.sort()).toEqual([
      ['GET', '/admin/referral-deliveries', false, true],
      ['GET', '/store/referrals/me', false, false],
      ['POST', '/admin/referral-deliveries/:id/retry', false, true],
      ['POST', '/admin/referral-promotions/sync', false, true],
      ['POST', '/store/referrals/join', false, false],
    ]);
  });

  it('authenticates its store routes as the logged-in customer (session or bearer), in the api/middlewares.js Medusa reads', () => {
    // @medusajs/framework/http needs ioredis at load time (the Medusa app has it, this repository not): what the file asks of it is recorded instead.
    let middlewares: { routes: Array<{ matcher: string; middlewares: unknown[] }> } | undefined;
    jest.isolateModules(() => {
      jest.doMock('@medusajs/framework/http', () => ({
        authenticate: (actorType: string, authTypes: string[], options?: object) => ({ authenticate: [actorType, authTypes, options] }),
        defineMiddlewares: (config: unknown) => config,
      }));
      middlewares = require(path.join(pluginDir, '.medusa/server/src/api/middlewares.js')).default;
    });
    expect(middlewares!.routes.map((route) => [route.matcher, route.middlewares])).toEqual([
      ['/store/referrals*', [{ authenticate: ['customer', ['session', 'bearer'], undefined] }]],
    ]);
  });

  it('is importable under the path Medusa resolves plugin modules by (<package>/.medusa/server/src/modules/<name>)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(pluginDir, 'package.json'), 'utf8'));
    expect(pkg.exports['./.medusa/server/src/modules/*']).toBe('./.medusa/server/src/modules/*/index.js');
  });

  it('resolves as a package the way Medusa resolves plugins (package.json export) and ships only the build', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(pluginDir, 'package.json'), 'utf8'));
    expect(pkg.exports['./package.json']).toBe('./package.json');
    expect(pkg.files).toEqual(['.medusa/server']);
    expect(pkg.peerDependencies['@medusajs/framework']).toMatch(/^\^2\.21/);
    // The promotion workflows (@medusajs/medusa/core-flows): every Medusa application has them.
    expect(pkg.peerDependencies['@medusajs/medusa']).toMatch(/^\^2\.21/);
  });
});
