import type { Connector } from '../../server/http';
import { shopifyCommands } from './cli';
import { shopifyConnection } from './dashboard-connection';
import { shopifyEmbeddedSession } from './embedded-session';
import { checkShopifyOffer } from './discount-offer';
import { startDiscountSyncWorker } from './discount-worker';
import { startRewardCodeWorker } from './reward-code-worker';
import { InboxBell, startShopifyInboxWorker } from './inbox-worker';
import { shopifyRoutes } from './http-routes';
import { startSessionRefresher } from './refresh-sessions';
import { loadShopifySettings } from './shopify-config';

/** The Shopify app: install and webhook routes, the inbox, discount and reward-code workers (and session renewal), `shopify …` commands, the embedded dashboard's sign-in. */
export const shopifyConnector: Connector = {
  name: 'shopify',
  configure(env) {
    const settings = loadShopifySettings(env);
    // One bell per process: the webhook route rings it, this process's inbox worker hears it.
    const bell = new InboxBell();
    return {
      routes: () => shopifyRoutes(settings.app, bell),
      startWorkers: (deps) => [
        startShopifyInboxWorker({ ...deps, bell }),
        startDiscountSyncWorker(deps, settings.app),
        startRewardCodeWorker(deps, settings.app),
        ...(settings.app ? [startSessionRefresher(deps, settings.app)] : []),
      ],
      cliCommands: shopifyCommands(settings),
      checkSettings: checkShopifyOffer,
      dashboard: {
        connection: shopifyConnection,
        embeddedSession: (ctx) => shopifyEmbeddedSession(ctx, settings.app),
      },
    };
  },
};
