import type { Executor } from '../db/transaction';

/** A live dashboard session as its user sees it (the list they can end one by one or all at once). */
export interface SessionView {
  /** The stored hash of the session's secret: names it, opens nothing. */
  id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  current: boolean;
}

/** The same person's sessions: a user's, or (user null) the operator's CLI-link sessions. */
const ofPerson = (db: Executor, brandId: string, userId: number | null) =>
  db('dashboard_sessions')
    .where({ brand_id: brandId })
    .where((q) => (userId === null ? q.whereNull('user_id') : q.where('user_id', userId)))
    .whereNull('ended_at')
    .where('expires_at', '>', db.fn.now());

export async function listSessions(db: Executor, brandId: string, userId: number | null, currentHash: string | null): Promise<SessionView[]> {
  const rows: Array<{ session_hash: string; ip: string | null; user_agent: string | null; created_at: Date; expires_at: Date }> = await ofPerson(db, brandId, userId)
    .orderBy('created_at', 'desc')
    .select('session_hash', 'ip', 'user_agent', 'created_at', 'expires_at');
  return rows.map((row) => ({
    id: row.session_hash,
    ip: row.ip,
    user_agent: row.user_agent,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: new Date(row.expires_at).toISOString(),
    current: row.session_hash === currentHash,
  }));
}

/** Ends one of the person's sessions (`id`), or all of them ("sign out everywhere"); returns how many ended. */
export async function endSessions(db: Executor, brandId: string, userId: number | null, id?: string): Promise<number> {
  const query = ofPerson(db, brandId, userId);
  if (id !== undefined) query.andWhere('session_hash', id);
  // Counted from RETURNING, which every driver reports (the embedded database's row counts are not relied on).
  return (await query.update({ ended_at: db.fn.now() }).returning('session_hash')).length;
}
