import { Session } from '@shopify/shopify-api';
import type { Knex } from 'knex';
import { decryptSecret, encryptSecret } from '../../core/brands/key-encryption';
import { lockKey } from '../../core/db/advisory-lock';
import type { Executor } from '../../core/db/transaction';
import { findShopLink } from './shop-links';

interface SessionRow {
  brand_id: string;
  session_id: string;
  shop_domain: string;
  state: string;
  is_online: boolean;
  scope: string | null;
  access_token_encrypted: string;
  expires_at: Date | null;
  refresh_token_encrypted: string | null;
  refresh_token_expires_at: Date | null;
}

/**
 * @shopify/shopify-api sessions in PostgreSQL (the shape of the library's SessionStorage
 * interface), with access and refresh tokens encrypted at rest by KEY_ENCRYPTION_SECRET.
 * A session is stored under the brand its shop is linked to.
 */
export class KnexSessionStorage {
  constructor(
    private readonly db: Executor,
    private readonly encryptionSecret: string,
  ) {}

  async storeSession(session: Session): Promise<boolean> {
    if (!session.accessToken) throw new Error(`session ${session.id} has no access token`);
    const link = await findShopLink(this.db, session.shop);
    if (!link) throw new Error(`shop ${session.shop} is not linked to a brand`);
    const row = {
      brand_id: link.brand_id,
      session_id: session.id,
      shop_domain: session.shop,
      state: session.state ?? '',
      is_online: session.isOnline,
      scope: session.scope ?? null,
      access_token_encrypted: encryptSecret(session.accessToken, this.encryptionSecret),
      expires_at: session.expires ?? null,
      refresh_token_encrypted: session.refreshToken ? encryptSecret(session.refreshToken, this.encryptionSecret) : null,
      refresh_token_expires_at: session.refreshTokenExpires ?? null,
    };
    await this.db('shopify_sessions')
      .insert(row)
      .onConflict(['brand_id', 'session_id'])
      .merge({ ...row, updated_at: this.db.fn.now() });
    return true;
  }

  /**
   * Runs `work` in a transaction holding the shop's token lock (every process, every server),
   * with a storage on that transaction: one token renewal per shop at a time.
   */
  async exclusively<T>(shop: string, work: (storage: KnexSessionStorage) => Promise<T>): Promise<T> {
    return (this.db as Knex).transaction(async (trx) => {
      await lockKey(trx, `shopify-token:${shop}`);
      return work(new KnexSessionStorage(trx, this.encryptionSecret));
    });
  }

  async loadSession(id: string): Promise<Session | undefined> {
    const row: SessionRow | undefined = await this.db('shopify_sessions').where({ session_id: id }).first();
    return row ? this.toSession(row) : undefined;
  }

  async deleteSession(id: string): Promise<boolean> {
    await this.db('shopify_sessions').where({ session_id: id }).delete();
    return true;
  }

  async deleteSessions(ids: string[]): Promise<boolean> {
    await this.db('shopify_sessions').whereIn('session_id', ids).delete();
    return true;
  }

  async findSessionsByShop(shop: string): Promise<Session[]> {
    const rows: SessionRow[] = await this.db('shopify_sessions').where({ shop_domain: shop });
    return rows.map((row) => this.toSession(row));
  }

  private toSession(row: SessionRow): Session {
    return new Session({
      id: row.session_id,
      shop: row.shop_domain,
      state: row.state,
      isOnline: row.is_online,
      ...(row.scope ? { scope: row.scope } : {}),
      accessToken: decryptSecret(row.access_token_encrypted, this.encryptionSecret),
      ...(row.expires_at ? { expires: new Date(row.expires_at) } : {}),
      ...(row.refresh_token_encrypted ? { refreshToken: decryptSecret(row.refresh_token_encrypted, this.encryptionSecret) } : {}),
      ...(row.refresh_token_expires_at ? { refreshTokenExpires: new Date(row.refresh_token_expires_at) } : {}),
    });
  }
}

/** Deletes every session of one brand's shop (app/uninstalled); returns how many there were. */
export async function deleteShopSessions(db: Executor, brandId: string, shop: string): Promise<number> {
  // Counted from RETURNING: the embedded driver does not report a delete's row count.
  const deleted = await db('shopify_sessions').where({ brand_id: brandId, shop_domain: shop }).delete().returning('session_id');
  return deleted.length;
}
