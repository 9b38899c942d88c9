import { authenticate, defineMiddlewares } from '@medusajs/framework/http';

/**
 * The plugin's store routes are the logged-in customer's, authenticated as Medusa's own
 * /store/customers/me: a customer's session cookie or bearer token (401 otherwise), on top of the
 * publishable API key Medusa asks of every /store route.
 */
export default defineMiddlewares({
  routes: [
    {
      matcher: '/store/referrals*',
      middlewares: [authenticate('customer', ['session', 'bearer'])],
    },
  ],
});
