import Router from '@koa/router';
import { NotFound } from '../../core/errors';
import type { AppContext, AppState, Ctx } from '../app-context';
import type { ConnectorParts } from '../http/connector';
import { readRawBody } from '../middleware/json-body';
import { serveAsset, serveStorefrontScript } from './assets';
import { logout, requireRole, requireViewer } from './dashboard-session';
import { accountPage, auditPage, changeUserForm, endSessionsForm, inviteForm, notificationsForm, teamPage } from './team-pages';
import { activityPage, advocatePage, advocatesPage, overviewPage, productsPage } from './report-pages';
import { seeOther } from './form-actions';
import { addAdvocateForm, changeAdvocateForm, importAdvocatesForm, importPage } from './advocate-forms';
import { createKeyForm, keysPage, revokeKeyForm } from './key-pages';
import { payoutsPage, uploadPaidForm } from './payout-pages';
import { retryRewardCodesForm } from './reward-code-forms';
import { emailTemplatePage, emailsPage, liftSuppressionForm, resetTemplateForm, retryEmailForm, saveTemplateForm, testTemplateForm } from './email-pages';
import { bulkRewardsPage, rewardsPage, voidRewardPage } from './reward-pages';
import { approveRewardForm, bulkRewardsForm, voidRewardForm } from './reward-forms';
import { saveSettingsForm, settingsPage } from './settings-pages';
import { decideReviewForm, reviewsPage } from './review-pages';
import { addEndpointForm, connectionsWithWebhooksPage, endpointForm, endpointPage } from './webhook-pages';
import { requireSameOriginPost } from './same-origin-post';
import { dashboardErrorPage, login, loginConfirmPage, requestSignIn, rootPage, signInHelpPage } from './sign-in-pages';
import { rateLimit } from '../middleware/rate-limit';

/** A posted form (application/x-www-form-urlencoded), read from the raw body. */
const formOf = (ctx: Ctx) => new URLSearchParams(ctx.state.rawBody?.toString('utf8') ?? '');

/**
 * The merchant's dashboard: server-rendered pages for one brand, signed in by a one-time link
 * (cookie session) or opened inside a platform's admin (the connector's embedded session).
 */
export function dashboardRoutes(connectors: readonly ConnectorParts[]): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>();
  const viewer = requireViewer(connectors);
  // Every form that changes the program needs an admin (or owner), checked here whatever the page showed.
  const admin = [viewer, requireRole('admin')] as const;
  router.get('/dashboard/assets/:name', (ctx) => serveAsset(ctx, ctx.params.name!));
  router.get('/favicon.ico', (ctx) => serveAsset(ctx, 'icon.svg'));
  router.get('/referrals.js', (ctx) => serveStorefrontScript(ctx));
  router.get('/referrals.:version.js', (ctx) => serveStorefrontScript(ctx, ctx.params.version!));
  router.get('/', dashboardErrorPage, (ctx) => rootPage(ctx, connectors));
  router.get('/dashboard/sign-in', dashboardErrorPage, signInHelpPage);
  router.post('/dashboard/sign-in', dashboardErrorPage, rateLimit('signIn'), readRawBody, (ctx) => {
    requireSameOriginPost(ctx);
    return requestSignIn(ctx, formOf(ctx));
  });
  router.get('/dashboard/login', dashboardErrorPage, loginConfirmPage);
  router.post('/dashboard/login', dashboardErrorPage, readRawBody, (ctx) => {
    requireSameOriginPost(ctx); // login CSRF: another site's form would sign the victim into its brand
    return login(ctx, formOf(ctx));
  });
  router.post('/dashboard/logout', dashboardErrorPage, readRawBody, viewer, (ctx) => logout(ctx, formOf(ctx)));
  router.get('/dashboard', dashboardErrorPage, viewer, overviewPage);
  router.get('/dashboard/advocates', dashboardErrorPage, viewer, (ctx) => advocatesPage(ctx));
  router.post('/dashboard/advocates', dashboardErrorPage, readRawBody, ...admin, (ctx) => addAdvocateForm(ctx, formOf(ctx), (refusal) => advocatesPage(ctx, refusal)));
  // Uploads are multipart, read by their handler (not readRawBody, whose limit is 1 MiB).
  router.post('/dashboard/advocates/import', dashboardErrorPage, ...admin, (ctx) => importAdvocatesForm(ctx, (refusal) => advocatesPage(ctx, refusal)));
  router.get('/dashboard/advocates/imports/:id', dashboardErrorPage, viewer, (ctx) => importPage(ctx, ctx.params.id!));
  for (const action of ['edit', 'codes', 'deactivate', 'reactivate'] as const) {
    router.post(`/dashboard/advocates/:id/${action}`, dashboardErrorPage, readRawBody, ...admin, (ctx) =>
      changeAdvocateForm(ctx, ctx.params.id!, action, formOf(ctx), (refusal) => advocatePage(ctx, ctx.params.id!, refusal)),
    );
  }
  router.get('/dashboard/advocates/:id', dashboardErrorPage, viewer, (ctx) => advocatePage(ctx, ctx.params.id!));
  router.post('/dashboard/reward-codes/retry', dashboardErrorPage, readRawBody, ...admin, (ctx) => retryRewardCodesForm(ctx, formOf(ctx), (status, message) => payoutsPage(ctx, { status, message })));
  router.get('/dashboard/rewards', dashboardErrorPage, viewer, (ctx) => rewardsPage(ctx));
  // The confirmation steps (a page each, no JavaScript needed) before a void or a bulk action.
  router.get('/dashboard/rewards/bulk', dashboardErrorPage, viewer, (ctx) => bulkRewardsPage(ctx));
  for (const action of ['approve', 'void'] as const) {
    router.post(`/dashboard/rewards/bulk/${action}`, dashboardErrorPage, readRawBody, ...admin, (ctx) => bulkRewardsForm(ctx, action, formOf(ctx)));
  }
  router.get('/dashboard/rewards/:id/void', dashboardErrorPage, viewer, (ctx) => voidRewardPage(ctx, ctx.params.id!));
  router.post('/dashboard/rewards/:id/void', dashboardErrorPage, readRawBody, ...admin, (ctx) => voidRewardForm(ctx, ctx.params.id!, formOf(ctx)));
  router.post('/dashboard/rewards/:id/approve', dashboardErrorPage, readRawBody, ...admin, (ctx) => approveRewardForm(ctx, ctx.params.id!, formOf(ctx)));
  router.get('/dashboard/emails', dashboardErrorPage, viewer, (ctx) => emailsPage(ctx));
  router.post('/dashboard/emails/log/:id/retry', dashboardErrorPage, readRawBody, ...admin, (ctx) => retryEmailForm(ctx, ctx.params.id!, formOf(ctx)));
  router.post('/dashboard/emails/suppressions/remove', dashboardErrorPage, readRawBody, ...admin, (ctx) => liftSuppressionForm(ctx, formOf(ctx)));
  router.get('/dashboard/emails/:template', dashboardErrorPage, viewer, (ctx) => emailTemplatePage(ctx, ctx.params.template!));
  router.post('/dashboard/emails/:template', dashboardErrorPage, readRawBody, ...admin, (ctx) => saveTemplateForm(ctx, ctx.params.template!, formOf(ctx)));
  router.post('/dashboard/emails/:template/reset', dashboardErrorPage, readRawBody, ...admin, (ctx) => resetTemplateForm(ctx, ctx.params.template!, formOf(ctx)));
  router.post('/dashboard/emails/:template/test', dashboardErrorPage, readRawBody, ...admin, (ctx) => testTemplateForm(ctx, ctx.params.template!, formOf(ctx)));
  router.get('/dashboard/activity', dashboardErrorPage, viewer, activityPage);
  router.get('/dashboard/products', dashboardErrorPage, viewer, productsPage);
  router.get('/dashboard/reviews', dashboardErrorPage, viewer, (ctx) => reviewsPage(ctx));
  router.post('/dashboard/reviews/:id/approve', dashboardErrorPage, readRawBody, ...admin, (ctx) => decideReviewForm(ctx, ctx.params.id!, 'approved', formOf(ctx)));
  router.post('/dashboard/reviews/:id/reject', dashboardErrorPage, readRawBody, ...admin, (ctx) => decideReviewForm(ctx, ctx.params.id!, 'rejected', formOf(ctx)));
  router.get('/dashboard/connections', dashboardErrorPage, viewer, (ctx) => connectionsWithWebhooksPage(ctx, connectors));
  router.post('/dashboard/connections/webhooks', dashboardErrorPage, readRawBody, ...admin, (ctx) => addEndpointForm(ctx, connectors, formOf(ctx)));
  // The address the add form's 201 page stays on: reopened later, it is Connections.
  router.get('/dashboard/connections/webhooks', dashboardErrorPage, viewer, (ctx) => seeOther(ctx, '/dashboard/connections'));
  router.get('/dashboard/connections/webhooks/:id', dashboardErrorPage, viewer, (ctx) => endpointPage(ctx, ctx.params.id!));
  for (const action of ['test', 'enable', 'remove'] as const) {
    router.post(`/dashboard/connections/webhooks/:id/${action}`, dashboardErrorPage, readRawBody, ...admin, (ctx) => endpointForm(ctx, ctx.params.id!, action, formOf(ctx)));
  }
  router.post('/dashboard/connections/webhooks/:id/deliveries/:delivery/replay', dashboardErrorPage, readRawBody, ...admin, (ctx) =>
    endpointForm(ctx, ctx.params.id!, 'replay', formOf(ctx), ctx.params.delivery),
  );
  router.get('/dashboard/team', dashboardErrorPage, viewer, (ctx) => teamPage(ctx));
  router.post('/dashboard/team/invite', dashboardErrorPage, readRawBody, ...admin, (ctx) => inviteForm(ctx, formOf(ctx)));
  for (const action of ['role', 'remove'] as const) {
    router.post(`/dashboard/team/:id/${action}`, dashboardErrorPage, readRawBody, ...admin, (ctx) => changeUserForm(ctx, ctx.params.id!, action, formOf(ctx)));
  }
  router.get('/dashboard/account', dashboardErrorPage, viewer, (ctx) => accountPage(ctx));
  router.post('/dashboard/account/notifications', dashboardErrorPage, readRawBody, viewer, (ctx) => notificationsForm(ctx, formOf(ctx)));
  router.post('/dashboard/account/sessions/end', dashboardErrorPage, readRawBody, viewer, (ctx) => endSessionsForm(ctx, false, formOf(ctx)));
  router.post('/dashboard/account/sessions/end-all', dashboardErrorPage, readRawBody, viewer, (ctx) => endSessionsForm(ctx, true, formOf(ctx)));
  router.get('/dashboard/audit', dashboardErrorPage, viewer, auditPage);
  router.get('/dashboard/settings', dashboardErrorPage, viewer, (ctx) => settingsPage(ctx));
  router.post('/dashboard/settings', dashboardErrorPage, readRawBody, ...admin, (ctx) => saveSettingsForm(ctx, formOf(ctx)));
  router.get('/dashboard/keys', dashboardErrorPage, viewer, (ctx) => keysPage(ctx));
  router.post('/dashboard/keys', dashboardErrorPage, readRawBody, ...admin, (ctx) => createKeyForm(ctx, formOf(ctx)));
  router.post('/dashboard/keys/:id/revoke', dashboardErrorPage, readRawBody, ...admin, (ctx) => revokeKeyForm(ctx, ctx.params.id!, formOf(ctx)));
  router.get('/dashboard/payouts', dashboardErrorPage, viewer, (ctx) => payoutsPage(ctx));
  router.post('/dashboard/payouts/paid', dashboardErrorPage, ...admin, uploadPaidForm);
  // Last: any other dashboard address is a page saying so (never the API's JSON, never the address's own text).
  router.get('/dashboard/*rest', dashboardErrorPage, () => {
    throw new NotFound('There is no such page in the dashboard. Check the address, or start from the overview.');
  });
  return router;
}
