import type { Connector } from '../../server/http';
import { medusaRoutes } from './http-routes';

/** The Medusa v2 plugin's receiving end: POST /medusa/webhooks. It has no settings of its own. */
export const medusaConnector: Connector = {
  name: 'medusa',
  configure: () => ({ routes: medusaRoutes }),
};
