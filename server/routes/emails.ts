import type Router from '@koa/router';
import { listMailMessages } from '../../core/mail/mail-messages';
import { inTransaction } from '../../core/db/transaction';
import { changeTemplate, listTemplates, resetTemplate } from '../../core/mail/template-texts';
import type { AppContext, AppState, Ctx, Middleware } from '../app-context';
import { actorOf } from './api-actor';
import { answer as ok } from './answer';
import { parseJsonObject } from '../middleware/json-body';
import { mailListQuerySchema, parseTemplateName, parseTemplatePatch, parseTemplateText } from '../schemas/mail-request';

const templateOf = (ctx: Ctx) => parseTemplateName(String((ctx as Ctx & { params: Record<string, string> }).params.template));

/** GET /emails: the brand's program emails, newest first, with how their sending went. */
const list: Middleware = async (ctx) => ok(ctx, await listMailMessages(ctx.app.context.deps.db, ctx.state.brand!.brand_id, mailListQuerySchema.parse(ctx.query)));

const templates: Middleware = async (ctx) => ok(ctx, await listTemplates(ctx.app.context.deps.db, ctx.state.brand!));

/** PUT: the brand's own subject and body; a placeholder the template does not have is a 400 naming it. */
const save: Middleware = async (ctx) => {
  const text = parseTemplateText(parseJsonObject(ctx.state.rawBody));
  ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => changeTemplate(trx, ctx.state.brand!, templateOf(ctx), text, actorOf(ctx))));
};

/** PATCH: switch the email on or off and/or change part of its words. */
const change: Middleware = async (ctx) => {
  const patch = parseTemplatePatch(parseJsonObject(ctx.state.rawBody));
  const { db } = ctx.app.context.deps;
  ok(ctx, await inTransaction(db, (trx) => changeTemplate(trx, ctx.state.brand!, templateOf(ctx), patch, actorOf(ctx))));
};

/** DELETE: back to the default words in the brand's language. */
const reset: Middleware = async (ctx) => ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => resetTemplate(trx, ctx.state.brand!, templateOf(ctx), actorOf(ctx))));

/** The program-email routes of /api/v1 (docs/merchants/program-emails.md), each after `guard` (body, API key, plan). */
export function emailRoutes(router: Router<AppState, AppContext>, ...guard: Middleware[]): void {
  router.get('/emails', ...guard, list);
  router.get('/email-templates', ...guard, templates);
  router.put('/email-templates/:template', ...guard, save);
  router.patch('/email-templates/:template', ...guard, change);
  router.delete('/email-templates/:template', ...guard, reset);
}
