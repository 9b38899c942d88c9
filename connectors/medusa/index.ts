import type { Connector } from '../../server/http';
import { medusaConnection } from './dashboard-connection';
import { medusaRoutes } from './http-routes';

/** The Medusa v2 plugin's receiving end: POST /medusa/webhooks, and its deliveries on the dashboard. It has no settings of its own. */
export const medusaConnector: Connector = {
  name: 'medusa',
  configure: () => ({ routes: medusaRoutes, dashboard: { connection: medusaConnection } }),
};
