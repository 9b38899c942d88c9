import { z } from 'zod';
import { MERCHANT_ROLES, changeRole, chooseNotifications, listUsers, notificationChoices, removeUser } from '../../core/accounts/merchant-users';
import { inviteUser } from '../../core/accounts/sign-in-links';
import { listAudit } from '../../core/audit/audit-log';
import { endSessions, listSessions } from '../../core/dashboard/dashboard-sessions';
import { inTransaction } from '../../core/db/transaction';
import { Invalid } from '../../core/errors';
import type { Ctx } from '../app-context';
import { requireConfirmation } from './confirmation';
import { publicUrlOf } from '../config';
import { mailbox } from '../schemas/fields';
import { sendCsv } from './csv-export';
import { CSV_MAX_ROWS, PER_PAGE } from './dashboard-query';
import { runForm, seeOther } from './form-actions';
import { countOf, doneOf } from './form-notice';
import { renderPage } from './render-page';

const inviteSchema = z.object({ email: mailbox(), role: z.enum(MERCHANT_ROLES, { error: `role must be one of ${MERCHANT_ROLES.join(', ')}` }) });
const roleSchema = inviteSchema.pick({ role: true });
const userIdOf = (id: string) => z.coerce.number({ error: 'user must be a user id' }).int().positive({ error: 'user must be a user id' }).parse(id);
const actorOf = (ctx: Ctx) => ({ name: ctx.state.viewer!.actor, role: ctx.state.viewer!.role });

/** The team page's status line after a form: the link names a user id, and the user is described as stored now. */
function teamNotice(ctx: Ctx, users: Array<{ user_id: number; email: string; role: string }>): string | null {
  const done = doneOf(ctx, ['invited', 'role_changed', 'removed']);
  if (done === 'removed') return 'The user was removed; their sessions ended.';
  const user = users.find((candidate) => candidate.user_id === countOf(ctx, 'user'));
  if (!done || !user) return null;
  return done === 'invited' ? `Invited ${user.email} as ${user.role}: a sign-in link is on its way to them.` : `${user.email} is now ${user.role}.`;
}

/** GET /dashboard/team: the brand's users and their roles; an owner or admin invites and changes them. */
export async function teamPage(ctx: Ctx, refusal?: { status: number; message: string; field?: string; form?: Record<string, string> }): Promise<void> {
  const { brand } = ctx.state.viewer!;
  const users = await listUsers(ctx.app.context.deps.db, brand.brand_id);
  const done = teamNotice(ctx, users);
  renderPage(
    ctx,
    'team',
    { title: 'Team', section: '/dashboard/team', users, roles: MERCHANT_ROLES, notice: done, refusal: refusal?.message ?? null, field: refusal?.field ?? null, form: refusal?.form ?? {} },
    refusal?.status,
  );
}

/** POST /dashboard/team/invite: adds the user and emails them a sign-in link, in one transaction. */
export async function inviteForm(ctx: Ctx, form: URLSearchParams): Promise<void> {
  const values = { email: form.get('email') ?? '', role: form.get('role') ?? '' };
  await runForm(
    ctx,
    form,
    async () => {
      const input = inviteSchema.parse(values);
      const { db, config } = ctx.app.context.deps;
      const settings = { publicUrl: publicUrlOf(config), secret: config.keyEncryptionSecret };
      const user = await inTransaction(db, (trx) => inviteUser(trx, ctx.state.viewer!.brand.brand_id, input, actorOf(ctx), settings));
      seeOther(ctx, '/dashboard/team', { done: 'invited', user: user.user_id });
    },
    (status, message) => teamPage(ctx, { status, message, field: message.startsWith('role') ? 'role' : 'email', form: values }),
  );
}

/** POST /dashboard/team/:id/role and /remove. */
export async function changeUserForm(ctx: Ctx, id: string, action: 'role' | 'remove', form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const userId = userIdOf(id);
      const brandId = ctx.state.viewer!.brand.brand_id;
      const { db } = ctx.app.context.deps;
      if (action === 'role') {
        const { role } = roleSchema.parse({ role: form.get('role') ?? '' });
        const user = await inTransaction(db, (trx) => changeRole(trx, brandId, userId, role, actorOf(ctx)));
        seeOther(ctx, '/dashboard/team', { done: 'role_changed', user: user.user_id });
      } else {
        requireConfirmation(form, 'Yes, remove this user');
        await inTransaction(db, (trx) => removeUser(trx, brandId, userId, actorOf(ctx)));
        seeOther(ctx, '/dashboard/team', { done: 'removed' });
      }
    },
    (status, message) => teamPage(ctx, { status, message }),
  );
}

/** GET /dashboard/account: who is signed in, and their live sessions (each can be ended, or all). */
export async function accountPage(ctx: Ctx, refusal?: { status: number; message: string }): Promise<void> {
  const viewer = ctx.state.viewer!;
  const { db } = ctx.app.context.deps;
  const sessions = viewer.embedded ? [] : await listSessions(db, viewer.brand.brand_id, viewer.user?.user_id ?? null, viewer.sessionHash);
  const done = doneOf(ctx, ['ended', 'already_ended', 'notifications']);
  const words = { ended: 'That session is ended.', already_ended: 'That session had already ended.', notifications: 'Your email choices are saved.' };
  // Notices go to a person (a user with an address): the operator's link and the Shopify admin have none.
  const notifications = viewer.user ? await notificationChoices(db, viewer.brand.brand_id, viewer.user.user_id) : null;
  renderPage(
    ctx,
    'account',
    { title: 'Your account', section: '/dashboard/account', sessions, notifications, notice: done && words[done], refusal: refusal?.message ?? null },
    refusal?.status,
  );
}

/** POST /dashboard/account/notifications: the signed-in person's own choices (checkboxes: digest_email, review_alert_email). */
export async function notificationsForm(ctx: Ctx, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const viewer = ctx.state.viewer!;
      if (!viewer.user) throw new Invalid('notifications: sign in with your own email address to choose your emails (this session has no user)');
      const choices = { digest_email: form.get('digest_email') === 'on', review_alert_email: form.get('review_alert_email') === 'on' };
      await inTransaction(ctx.app.context.deps.db, (trx) => chooseNotifications(trx, viewer.brand.brand_id, viewer.user!.user_id, choices, actorOf(ctx)));
      seeOther(ctx, '/dashboard/account', { done: 'notifications' });
    },
    (status, message) => accountPage(ctx, { status, message }),
  );
}

/** POST /dashboard/account/sessions/end (one, `session`) and /end-all ("sign out everywhere", this browser too). */
export async function endSessionsForm(ctx: Ctx, all: boolean, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const viewer = ctx.state.viewer!;
      const id = all ? undefined : z.string({ error: 'session is required' }).regex(/^[0-9a-f]{64}$/, { error: 'session must be a session id' }).parse(form.get('session'));
      const ended = await endSessions(ctx.app.context.deps.db, viewer.brand.brand_id, viewer.user?.user_id ?? null, id);
      if (all || id === viewer.sessionHash) {
        ctx.redirect('/dashboard/sign-in?signed_out=1');
        ctx.status = 303;
        return;
      }
      seeOther(ctx, '/dashboard/account', { done: ended > 0 ? 'ended' : 'already_ended' });
    },
    (status, message) => accountPage(ctx, { status, message }),
  );
}

const auditQuerySchema = z.object({
  before: z.coerce.number({ error: 'before must be an entry id' }).int().positive({ error: 'before must be an entry id' }).optional(),
  format: z.enum(['html', 'csv'], { error: 'format must be html or csv' }).default('html'),
});

const asText = (values: Record<string, unknown> | null) => (values ? Object.entries(values).map(([field, value]) => `${field}: ${JSON.stringify(value)}`).join('; ') : '');

const shown = (value: unknown) => (value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** Each field an entry names, as "field: before → after" (a creation has only after, a removal only before). */
function changeLines(before: Record<string, unknown> | null, after: Record<string, unknown> | null): string[] {
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return fields.map((field) => {
    if (!before) return `${field}: ${shown(after![field])}`;
    if (!after) return `${field}: ${shown(before[field])} (removed)`;
    return `${field}: ${shown(before[field])} → ${shown(after[field])}`;
  });
}

/** GET /dashboard/audit: what was changed, by whom, before → after; newest first; ?format=csv exports it. */
export async function auditPage(ctx: Ctx): Promise<void> {
  const query = auditQuerySchema.parse(ctx.query);
  const { brand } = ctx.state.viewer!;
  const csv = query.format === 'csv';
  const entries = await listAudit(ctx.app.context.deps.db, brand.brand_id, { limit: csv ? CSV_MAX_ROWS : PER_PAGE + 1, before: csv ? undefined : query.before });
  if (csv) {
    return sendCsv(ctx, 'audit-log', [
      ['id', (e) => e.id],
      ['created_at', (e) => e.created_at],
      ['actor', (e) => e.actor],
      ['action', (e) => e.action],
      ['subject', (e) => e.subject],
      ['before', (e) => asText(e.before)],
      ['after', (e) => asText(e.after)],
    ], entries);
  }
  const rows = entries.slice(0, PER_PAGE).map((entry) => ({ ...entry, changes: changeLines(entry.before, entry.after) }));
  renderPage(ctx, 'audit', { title: 'Audit log', section: '/dashboard/audit', rows, next: entries.length > PER_PAGE ? rows[rows.length - 1]!.id : null });
}
