import type { Executor } from '../db/transaction';

/**
 * The audit trail of what merchants change (docs/merchants/merchant-accounts.md): who, when, what, and the
 * values before and after. Written in the change's own transaction, so a change and its record
 * commit or roll back together.
 */
export interface AuditEntry {
  brandId: string;
  /** A user's email, `api_key:<id>`, a Shopify staff member, or `operator` (a CLI sign-in link). */
  actor: string;
  /** What was done: `brand.settings`, `advocate.create`, `api_key.revoke`... */
  action: string;
  /** What it was done to: `brand`, `advocate:12`, `api_key:<id>`, `user:3`... */
  subject: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export interface AuditView {
  id: number;
  actor: string;
  action: string;
  subject: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  created_at: string;
}

/**
 * Only what changed: the fields of `after` whose value differs from `before`'s, with their old
 * values — a settings form that saves 25 fields records the two that moved.
 */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(after)) {
    if (JSON.stringify(before[field]) !== JSON.stringify(value)) {
      was[field] = before[field] ?? null;
      now[field] = value;
    }
  }
  return { before: was, after: now };
}

export async function recordAudit(db: Executor, entries: AuditEntry | AuditEntry[]): Promise<void> {
  const rows = (Array.isArray(entries) ? entries : [entries]).map((entry) => ({
    brand_id: entry.brandId,
    actor: entry.actor.slice(0, 300),
    action: entry.action,
    subject: entry.subject,
    before: entry.before === undefined || entry.before === null ? null : JSON.stringify(entry.before),
    after: entry.after === undefined || entry.after === null ? null : JSON.stringify(entry.after),
  }));
  if (rows.length > 0) await db('audit_log').insert(rows);
}

/** The brand's audit trail, newest first; `before` an entry id for the next page. */
export async function listAudit(db: Executor, brandId: string, options: { limit: number; before?: number }): Promise<AuditView[]> {
  const query = db('audit_log').where({ brand_id: brandId }).orderBy('entry_id', 'desc').limit(options.limit);
  if (options.before !== undefined) query.andWhere('entry_id', '<', options.before);
  const rows: Array<{ entry_id: string; actor: string; action: string; subject: string; before: unknown; after: unknown; created_at: Date }> = await query;
  return rows.map((row) => ({
    id: Number(row.entry_id),
    actor: row.actor,
    action: row.action,
    subject: row.subject,
    before: (typeof row.before === 'string' ? JSON.parse(row.before) : row.before) as Record<string, unknown> | null,
    after: (typeof row.after === 'string' ? JSON.parse(row.after) : row.after) as Record<string, unknown> | null,
    created_at: new Date(row.created_at).toISOString(),
  }));
}
