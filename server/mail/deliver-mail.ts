import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { findBrands } from '../../core/brands/brand';
import { startPollingWorker, type PollingWorker } from '../../core/jobs/polling-worker';
import {
  type DueMessage, type MailOutcome, failInterruptedMessages, messagesWaitOnRetry, recordMailOutcomes, takeDueMessages, wakeWaitingMessages,
} from '../../core/mail/mail-messages';
import { mailRetryDelaySeconds } from '../../core/mail/mail-retry';
import { type AccountMail, isAccountMail } from '../../core/accounts/account-mail';
import { accountMailContent } from '../../core/accounts/account-mail-content';
import { merchantNoticeContent } from '../../core/accounts/merchant-notice-content';
import { decryptSecret } from '../../core/brands/key-encryption';
import { isMailbox } from '../../core/mail/mailbox';
import { advocatesOf, messageContent } from '../../core/mail/message-content';
import { queueReengagement } from '../../core/mail/reengagement';
import { suppressedAmong } from '../../core/mail/suppressions';
import { customTexts } from '../../core/mail/template-texts';
import { unsubscribeToken } from '../../core/mail/unsubscribe-token';
import type { MailSettings } from './mail-settings';
import type { Mailbox, MailTransport } from './mail-transport';

export interface MailDeps {
  db: Knex;
  transport: MailTransport;
  settings: MailSettings;
  /** The service's public origin: unsubscribe links point at it. */
  publicUrl: string;
  /** Signs unsubscribe links. */
  secret: string;
  logger?: Logger;
  /** Set when the process is stopping: no message starts; those taken and not begun go back to the queue. */
  stopping?: { value: boolean };
}

/** Messages one pass takes and hands over: the addresses at once (through the transport's few pooled connections), each address's in order. */
const PASS_SIZE = 100;

/** The one-click unsubscribe link of one address at one brand (RFC 8058's List-Unsubscribe). */
export function unsubscribeUrl(deps: Pick<MailDeps, 'publicUrl' | 'secret'>, brandId: string, email: string): string {
  return `${deps.publicUrl}/mail/unsubscribe/${unsubscribeToken(deps.secret, { brandId, email })}`;
}

/** The sender's address: MAIL_FROM, else referrals@ the public URL's host. */
export function senderAddress(deps: Pick<MailDeps, 'settings' | 'publicUrl'>): string {
  return deps.settings.from ?? `referrals@${new URL(deps.publicUrl).hostname}`;
}

/** nodemailer's error as an outcome: a 5xx is final (on RCPT TO, the address bounced); a 4xx or a broken connection is retried. */
export function outcomeOfError(error: unknown, attempts: number, retryScale: number): MailOutcome {
  const { message, responseCode, command, code } = error as { message?: string; responseCode?: number; command?: string; code?: string };
  const text = message ?? String(error);
  if (typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600) return { kind: 'failed', error: text, bounced: /RCPT/i.test(command ?? '') };
  if (code === 'EENVELOPE' && responseCode === undefined) return { kind: 'failed', error: text, bounced: true };
  return { kind: 'retry', error: text, delaySeconds: mailRetryDelaySeconds(attempts, retryScale) };
}

const key = (brandId: string, id: string | number) => `${brandId}:${id}`;

/**
 * The one address a stored recipient is, or null: a header break (`a@x\r\nBcc: b@x`), a list or a
 * group is checked where an address is taken, and never handed to nodemailer if one got stored.
 */
const mailboxOf = (recipient: string): Mailbox | null => (isMailbox(recipient) ? { name: '', address: recipient.trim() } : null);

/** Failed at once, not retried: no attempt would make it one address. */
const NOT_ONE_ADDRESS: MailOutcome = { kind: 'failed', error: 'not sent: the recipient is not one email address', bounced: false };

/** One taken message, rendered in the brand's words and handed to the transport: how it went. */
async function attempt(deps: MailDeps, message: DueMessage, context: PassContext): Promise<MailOutcome> {
  const to = mailboxOf(message.recipient);
  if (!to) return NOT_ONE_ADDRESS;
  if (isAccountMail(message.template)) return attemptAccountMail(deps, message, to, message.template, context);
  const brand = context.brands.get(message.brand_id)!;
  if (context.suppressed.has(key(message.brand_id, message.recipient_normalized))) return { kind: 'suppressed' };
  const advocateId = message.advocate_id ?? message.data.advocate_id;
  const advocate = advocateId === undefined || advocateId === null ? (message.data.sample_advocate ?? null) : (context.advocates.get(key(message.brand_id, advocateId)) ?? null);
  const unsubscribe = unsubscribeUrl(deps, message.brand_id, message.recipient);
  try {
    const content = messageContent(brand, { template: message.template, data: message.data }, context.texts.get(key(message.brand_id, message.template)), advocate, unsubscribe);
    await deps.transport.send({
      from: { name: brand.sender_name ?? brand.name, address: senderAddress(deps) },
      to,
      subject: message.data.test ? `[Test] ${content.subject}` : content.subject,
      text: content.text,
      html: content.html,
      // The same id on every attempt: a receiving server that saw it already can tell.
      messageId: `<mail.${message.message_id}.${message.brand_id}@${new URL(deps.publicUrl).hostname}>`,
      list: { unsubscribe: unsubscribe },
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      fileName: `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.template}-${message.message_id}.eml`,
    });
    return { kind: 'sent', subject: content.subject };
  } catch (error) {
    return outcomeOfError(error, message.attempts, deps.settings.retryScale);
  }
}

/** A merchant's sign-in link or invitation: the link unsealed, no unsubscribe (no program switch or suppression stops it). */
async function attemptAccountMail(deps: MailDeps, message: DueMessage, to: Mailbox, template: AccountMail, context: PassContext): Promise<MailOutcome> {
  const brand = context.brands.get(message.brand_id)!;
  try {
    const content =
      template === 'merchant_digest' || template === 'merchant_review_alert'
        ? merchantNoticeContent(template, { brandName: brand.name, dashboardUrl: `${deps.publicUrl}/dashboard`, data: message.data })
        : accountMailContent(template, {
            brandName: brand.name,
            link: decryptSecret(message.data.link_sealed ?? '', deps.secret),
            signInPage: `${deps.publicUrl}/dashboard/sign-in`,
            invitedBy: message.data.invited_by,
            role: message.data.role,
          });
    await deps.transport.send({
      from: { name: `${brand.name} referrals`, address: senderAddress(deps) },
      to,
      subject: content.subject,
      text: content.text,
      html: content.html,
      messageId: `<mail.${message.message_id}.${message.brand_id}@${new URL(deps.publicUrl).hostname}>`,
      fileName: `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.template}-${message.message_id}.eml`,
    });
    return { kind: 'sent', subject: content.subject };
  } catch (error) {
    return outcomeOfError(error, message.attempts, deps.settings.retryScale);
  }
}

/** A pass's messages by address, each address's oldest first (takeDueMessages returns them so). */
function byAddress(due: DueMessage[]): Map<string, DueMessage[]> {
  const groups = new Map<string, DueMessage[]>();
  for (const message of due) {
    const address = key(message.brand_id, message.recipient_normalized);
    const group = groups.get(address);
    if (group) group.push(message);
    else groups.set(address, [message]);
  }
  return groups;
}

/**
 * One address's messages, one after the other, in the order they were written: after one that
 * must wait (a 4xx, the server unreachable) the rest wait behind it; after a bounce they are not sent.
 */
async function sendInOrder(deps: MailDeps, messages: DueMessage[], context: PassContext, until: number): Promise<Array<{ message: DueMessage; outcome: MailOutcome }>> {
  const outcomes: Array<{ message: DueMessage; outcome: MailOutcome }> = [];
  let stop: MailOutcome | null = null;
  for (const message of messages) {
    // Half the lease gone, or the process stopping: the rest go back to the queue, so none is left
    // `sending` for another process to think interrupted (and fail).
    if (Date.now() > until || deps.stopping?.value) stop ??= { kind: 'deferred' };
    const outcome = stop ?? (await attempt(deps, message, context));
    outcomes.push({ message, outcome });
    if (outcome.kind === 'retry') stop = { kind: 'deferred' };
    if (outcome.kind === 'failed' && outcome.bounced) stop = { kind: 'suppressed' };
  }
  return outcomes;
}

interface PassContext {
  brands: Awaited<ReturnType<typeof findBrands>>;
  texts: Awaited<ReturnType<typeof customTexts>>;
  advocates: Awaited<ReturnType<typeof advocatesOf>>;
  suppressed: Set<string>;
}

/** What a pass's messages need, read in four statements for all of them. */
async function contextOf(db: Knex, due: DueMessage[]): Promise<PassContext> {
  const advocatePairs = due.flatMap((message) => {
    const id = message.advocate_id ?? message.data.advocate_id;
    return id === undefined || id === null ? [] : [{ brand_id: message.brand_id, advocate_id: Number(id) }];
  });
  const [brands, texts, advocates, suppressed] = await Promise.all([
    findBrands(db, due.map((message) => message.brand_id)),
    customTexts(db, due.flatMap(({ brand_id, template }) => (isAccountMail(template) ? [] : [{ brand_id, template }]))),
    advocatesOf(db, advocatePairs),
    suppressedAmong(db, due.map(({ brand_id, recipient_normalized }) => ({ brand_id, email_normalized: recipient_normalized }))),
  ]);
  return { brands, texts, advocates, suppressed };
}

/**
 * One pass: takes the due messages (oldest first) and sends them; `brandId` limits all it reads
 * and changes to one brand's (tests on a shared database, an operator's one-off run). Returns how
 * many it took.
 */
export async function deliverDueMail(deps: MailDeps, brandId?: string): Promise<number> {
  const interrupted = await failInterruptedMessages(deps.db, brandId);
  if (interrupted > 0) deps.logger?.warn({ messages: interrupted }, 'mail interrupted while sending marked failed (see `referrals mail list --status failed`)');
  const leaseSeconds = Math.ceil((deps.settings.sendTimeoutMs * 3) / 1000) + 30;
  const due = await takeDueMessages(deps.db, { limit: PASS_SIZE, leaseSeconds, brandId });
  if (due.length === 0) {
    await wakeIfServerIsBack(deps, brandId);
    return 0;
  }
  const until = Date.now() + (leaseSeconds * 1000) / 2 - deps.settings.sendTimeoutMs;
  const context = await contextOf(deps.db, due);
  const attempts = (await Promise.all([...byAddress(due).values()].map((messages) => sendInOrder(deps, messages, context, until)))).flat();
  await recordMailOutcomes(deps.db, attempts);
  for (const { message, outcome } of attempts) {
    if (outcome.kind === 'retry' || outcome.kind === 'failed') {
      deps.logger?.warn({ message_id: message.message_id, template: message.template, error: outcome.error, retry: outcome.kind === 'retry' && outcome.delaySeconds !== null }, 'mail not sent');
    }
  }
  return due.length;
}

/** When each transport was last asked whether its server is back. */
const probedAt = new WeakMap<MailTransport, number>();

/**
 * Nothing due, but messages wait on a retry (the server failed them): at most every 30 worker
 * intervals (a minute by default) ask the server whether it answers again, and if it does make
 * them all due. The end of an outage is noticed within a minute, not at the next retry (up to
 * 30 minutes later).
 */
async function wakeIfServerIsBack(deps: MailDeps, brandId?: string): Promise<void> {
  const now = Date.now();
  if (now - (probedAt.get(deps.transport) ?? 0) < deps.settings.workerIntervalMs * 30) return;
  probedAt.set(deps.transport, now);
  if (!(await messagesWaitOnRetry(deps.db, brandId)) || !(await deps.transport.verify())) return;
  const woken = await wakeWaitingMessages(deps.db, brandId);
  deps.logger?.info({ messages: woken }, 'the SMTP server answers again: waiting program emails are due now');
}

/** How often a process looks for advocates to re-engage (the job is idempotent per period). */
const REENGAGEMENT_INTERVAL_MS = 3_600_000;

/**
 * The mail worker of a server process (and its hourly re-engagement job); several processes may
 * run them on one database. `brandId` limits it to one brand's messages (tests on a shared database).
 */
export function startMailWorker(options: MailDeps & { logger: Logger; brandId?: string }): PollingWorker {
  const deps = { ...options, stopping: { value: false } };
  deps.logger.info({ transport: deps.transport.describe }, 'program emails: sending through ' + deps.transport.describe);
  const worker = startPollingWorker({
    pass: () => deliverDueMail(deps, options.brandId),
    intervalMs: deps.settings.workerIntervalMs,
    // Draining a backlog, it takes at most about half the process's time: requests come first.
    restAfterMs: (passMs) => passMs,
    onError: (error) => deps.logger.error({ err: error }, 'mail pass failed'),
  });
  // Every brand's job: not for a worker limited to one brand (tests).
  const reengagement = startPollingWorker({
    pass: async () => {
      if (options.brandId) return 0;
      const queued = await queueReengagement(deps.db);
      if (queued > 0) deps.logger.info({ messages: queued }, 're-engagement emails queued');
      return 0;
    },
    intervalMs: REENGAGEMENT_INTERVAL_MS,
    onError: (error) => deps.logger.error({ err: error }, 're-engagement pass failed'),
  });
  return {
    kick: worker.kick,
    async stop() {
      deps.stopping.value = true;
      await Promise.all([worker.stop(), reengagement.stop()]);
      deps.transport.close();
    },
  };
}
