import type { Connector } from '../../server/http';
import { medusaConnection } from './dashboard-connection';
import { medusaRoutes } from './http-routes';
import { checkMedusaSettings } from './medusa-settings-check';

/** The Medusa v2 plugin's receiving end: POST /medusa/webhooks, and its deliveries on the dashboard. It has no settings of its own; it refuses a fulfilment its plugin cannot make. */
export const medusaConnector: Connector = {
  name: 'medusa',
  configure: () => ({ routes: medusaRoutes, checkSettings: checkMedusaSettings, dashboard: { connection: medusaConnection } }),
};
