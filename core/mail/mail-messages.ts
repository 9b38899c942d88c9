import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit-log';
import { lockKey } from '../db/advisory-lock';
import type { Executor } from '../db/transaction';
import { Invalid, NotFound } from '../errors';
import type { AccountMail, AccountMailData } from '../accounts/account-mail';
import { MAIL_TEMPLATES, type MailTemplate } from './mail-templates';
import type { MailData } from './mail-values';

/** The mail outbox (docs/merchants/program-emails.md): what was written to whom, and how its sending went. */
export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'failed', 'suppressed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export interface MailMessageView {
  id: number;
  template: MailTemplate;
  to: string;
  advocate_id: number | null;
  status: MailStatus;
  /** The subject it was sent with; null until it is sent. */
  subject: string | null;
  attempts: number;
  /** When the next attempt is due; null unless queued. */
  next_attempt_at: string | null;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
}

interface MessageRow {
  brand_id: string;
  message_id: string;
  template: MailTemplate;
  dedupe_key: string;
  advocate_id: string | null;
  recipient: string;
  recipient_normalized: string;
  data: MailData;
  status: MailStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  subject: string | null;
  sent_at: Date | null;
  created_at: Date;
}

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

function toView(row: MessageRow): MailMessageView {
  return {
    id: Number(row.message_id),
    template: row.template,
    to: row.recipient,
    advocate_id: row.advocate_id === null ? null : Number(row.advocate_id),
    status: row.status,
    subject: row.subject,
    attempts: row.attempts,
    next_attempt_at: row.status === 'queued' ? iso(row.next_attempt_at) : null,
    last_error: row.last_error,
    sent_at: iso(row.sent_at),
    created_at: iso(row.created_at)!,
  };
}

export interface MailFilter {
  status?: MailStatus;
  limit?: number;
  /** Only messages older than this one (the next page of a newest-first list). */
  before?: number;
  /** With the merchants' own sign-in links and invitations (the operator's view); otherwise the program's emails only. */
  withAccountMail?: boolean;
}

/** A brand's messages, newest first (at most 100 unless asked). */
export async function listMailMessages(db: Executor, brandId: string, filter: MailFilter = {}): Promise<MailMessageView[]> {
  // The program's emails: a merchant's own sign-in links and invitations are not the program's.
  const query = db('mail_messages').where({ brand_id: brandId }).orderBy('message_id', 'desc').limit(filter.limit ?? 100);
  if (!filter.withAccountMail) query.whereIn('template', MAIL_TEMPLATES);
  if (filter.status !== undefined) query.andWhere('status', filter.status);
  if (filter.before !== undefined) query.andWhere('message_id', '<', filter.before);
  return ((await query) as MessageRow[]).map(toView);
}

/**
 * A failed message queued again, due now (an operator's decision: it may reach someone twice only
 * if it was interrupted mid-send); the audit log names `actor`.
 */
export async function retryMailMessage(trx: Knex.Transaction, brandId: string, messageId: number, actor: string): Promise<MailMessageView> {
  const row: MessageRow | undefined = await trx('mail_messages').where({ brand_id: brandId, message_id: messageId }).first();
  if (!row) throw new NotFound(`message ${messageId} not found`);
  if (row.status !== 'failed') throw new Invalid(`message ${messageId} is ${row.status}; only a failed message can be retried`);
  const [updated] = await trx('mail_messages')
    .where({ brand_id: brandId, message_id: messageId, status: 'failed' })
    .update({ status: 'queued', attempts: 0, next_attempt_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning('*');
  await recordAudit(trx, { brandId, actor, action: 'mail.retry', subject: `mail:${messageId}`, before: { status: 'failed' }, after: { status: 'queued' } });
  return toView(updated as MessageRow);
}

/** A message taken by a worker: everything needed to render and send it. */
export interface DueMessage {
  brand_id: string;
  message_id: string;
  template: MailTemplate | AccountMail;
  advocate_id: string | null;
  recipient: string;
  recipient_normalized: string;
  data: MailData & Partial<AccountMailData>;
  /** Counting this one. */
  attempts: number;
}

/** Every process's takes, one at a time: what one takes, the next sees as `sending`. */
const TAKE_LOCK = 'mail:take';

/**
 * Takes up to `limit` due messages, oldest first, and marks them `sending` for `leaseSeconds`. A
 * message is due only when no older message to its address is being sent or waiting on a retry, so
 * each person gets their messages in the order they were written: the worker sends one address's
 * messages one after the other. Takes are serialized (an advisory lock held for the statement's
 * transaction), so no two processes ever send to one address at once; FOR UPDATE SKIP LOCKED
 * leaves alone a row someone else is changing.
 */
export async function takeDueMessages(db: Knex, options: { limit: number; leaseSeconds: number; brandId?: string }): Promise<DueMessage[]> {
  return db.transaction(async (trx) => {
    await lockKey(trx, TAKE_LOCK);
    const { rows } = await trx.raw(
      `WITH due AS (
         SELECT m.brand_id, m.message_id FROM mail_messages m
          WHERE m.status = 'queued' AND m.next_attempt_at <= now()
            AND (?::uuid IS NULL OR m.brand_id = ?::uuid)
            AND NOT EXISTS (
              SELECT 1 FROM mail_messages earlier
               WHERE earlier.brand_id = m.brand_id AND earlier.recipient_normalized = m.recipient_normalized AND earlier.message_id < m.message_id
                 AND (earlier.status = 'sending' OR (earlier.status = 'queued' AND earlier.next_attempt_at > now()))
            )
          ORDER BY m.message_id
          LIMIT ?
          FOR UPDATE OF m SKIP LOCKED
       )
       UPDATE mail_messages m SET status = 'sending', attempts = m.attempts + 1, next_attempt_at = now() + make_interval(secs => ?), updated_at = now()
         FROM due
        WHERE m.brand_id = due.brand_id AND m.message_id = due.message_id
       RETURNING m.brand_id, m.message_id, m.template, m.advocate_id, m.recipient, m.recipient_normalized, m.data, m.attempts`,
      [options.brandId ?? null, options.brandId ?? null, options.limit, options.leaseSeconds],
    );
    return (rows as DueMessage[]).sort((a, b) => Number(a.message_id) - Number(b.message_id));
  });
}

/**
 * A message whose worker stopped mid-send (its lease ran out while `sending`) is failed, not sent
 * again: the SMTP server may have taken it, and nobody gets a message twice. `mail retry` sends it
 * again on an operator's word. Returns how many.
 */
export async function failInterruptedMessages(db: Knex, brandId?: string): Promise<number> {
  return db('mail_messages')
    .where({ status: 'sending', ...(brandId ? { brand_id: brandId } : {}) })
    .andWhere('next_attempt_at', '<', db.fn.now())
    .update({ status: 'failed', last_error: 'interrupted while sending (the process stopped); not sent again, so nobody gets it twice', updated_at: db.fn.now() });
}

/** Whether some message waits on a retry (the SMTP server failed it) with nothing due now. */
export async function messagesWaitOnRetry(db: Knex, brandId?: string): Promise<boolean> {
  const row = await db('mail_messages').where({ status: 'queued', ...(brandId ? { brand_id: brandId } : {}) }).andWhere('attempts', '>', 0).andWhere('next_attempt_at', '>', db.fn.now()).first('message_id');
  return row !== undefined;
}

/** The SMTP server is back: every message waiting (on a retry, or behind one) is due now. The order rule still holds. */
export async function wakeWaitingMessages(db: Executor, brandId?: string): Promise<number> {
  return db('mail_messages').where({ status: 'queued', ...(brandId ? { brand_id: brandId } : {}) }).andWhere('next_attempt_at', '>', db.fn.now()).update({ next_attempt_at: db.fn.now() });
}

/** How one attempt went. */
export type MailOutcome =
  | { kind: 'sent'; subject: string }
  /** A 4xx or a connection that failed: tried again after `delaySeconds`, or failed when null. */
  | { kind: 'retry'; error: string; delaySeconds: number | null }
  /** A permanent refusal (5xx); `bounced`: the recipient's address itself was refused, which suppresses it. */
  | { kind: 'failed'; error: string; bounced: boolean }
  /** The address unsubscribed or bounced after the message was written. */
  | { kind: 'suppressed' }
  /** Not tried in this pass: an older message to the same address must wait, or the pass ran out of its lease. */
  | { kind: 'deferred' };

/**
 * Records a pass's attempts in one transaction, each only if its message is still the worker's
 * (taken and not recorded since): the sent ones in one statement, the rest (rare) one by one. A
 * message sent after earlier failures means the SMTP server is back: the others waiting on it are
 * due now.
 */
export async function recordMailOutcomes(db: Knex, attempts: Array<{ message: DueMessage; outcome: MailOutcome }>): Promise<void> {
  const sent = attempts.flatMap(({ message, outcome }) =>
    outcome.kind === 'sent' ? [{ brand_id: message.brand_id, message_id: message.message_id, attempts: message.attempts, subject: outcome.subject }] : [],
  );
  // Deferred ones are queued again first, so that a failed older message's wait reaches them too.
  const others = attempts.filter(({ outcome }) => outcome.kind !== 'sent').sort((a, b) => Number(b.outcome.kind === 'deferred') - Number(a.outcome.kind === 'deferred'));
  if (attempts.length === 0) return;
  await db.transaction(async (trx) => {
    if (sent.length > 0) {
      await trx.raw(
        `UPDATE mail_messages m SET status = 'sent', subject = s.subject, sent_at = now(), last_error = NULL, updated_at = now()
           FROM json_to_recordset(?::json) AS s(brand_id uuid, message_id bigint, attempts integer, subject text)
          WHERE m.brand_id = s.brand_id AND m.message_id = s.message_id AND m.status = 'sending' AND m.attempts = s.attempts`,
        [JSON.stringify(sent)],
      );
      if (sent.some(({ attempts: count }) => count > 1)) await wakeWaitingMessages(trx);
    }
    for (const { message, outcome } of others) await recordUnsent(trx, message, outcome);
  });
}

async function recordUnsent(trx: Knex.Transaction, message: DueMessage, outcome: MailOutcome): Promise<void> {
  const key = { brand_id: message.brand_id, message_id: message.message_id, status: 'sending', attempts: message.attempts };
  const now = trx.fn.now();
  const error = (text: string) => text.slice(0, 1000);
  if (outcome.kind === 'retry' && outcome.delaySeconds !== null) {
    const recorded = await trx('mail_messages')
      .where(key)
      .update({ status: 'queued', last_error: error(outcome.error), next_attempt_at: trx.raw('now() + make_interval(secs => ?)', [outcome.delaySeconds]), updated_at: now });
    // The messages to the same address behind it wait as long (they are not due before it anyway): no pass looks at them meanwhile.
    if (recorded > 0) {
      await trx('mail_messages')
        .where({ brand_id: message.brand_id, recipient_normalized: message.recipient_normalized, status: 'queued' })
        .andWhere('message_id', '>', message.message_id)
        .update({ next_attempt_at: trx.raw('greatest(next_attempt_at, now() + make_interval(secs => ?))', [outcome.delaySeconds]) });
    }
  } else if (outcome.kind === 'retry') {
    await trx('mail_messages').where(key).update({ status: 'failed', last_error: error(`gave up after ${message.attempts} attempts: ${outcome.error}`), updated_at: now });
  } else if (outcome.kind === 'deferred') {
    // Not attempted: its attempt is given back; due again now, behind the older one's wait when it has one.
    await trx('mail_messages').where(key).update({ status: 'queued', attempts: message.attempts - 1, next_attempt_at: now, updated_at: now });
  } else if (outcome.kind === 'failed') {
    const recorded = await trx('mail_messages').where(key).update({ status: 'failed', last_error: error(outcome.error), updated_at: now });
    if (recorded > 0 && outcome.bounced) {
      await trx('mail_suppressions')
        .insert({ brand_id: message.brand_id, email_normalized: message.recipient_normalized, reason: 'bounced', detail: error(outcome.error) })
        .onConflict(['brand_id', 'email_normalized'])
        .ignore();
    }
  } else if (outcome.kind === 'suppressed') {
    await trx('mail_messages').where(key).update({ status: 'suppressed', updated_at: now });
  }
}
