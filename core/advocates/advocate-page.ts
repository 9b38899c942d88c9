import type { Executor } from '../db/transaction';
import { normalizeCode } from './normalize';
import { type Advocate, advocatesByIds } from './advocates';
import type { AdvocateStatus } from './advocate-status';
import { shareLink } from './share-link';
import type { Brand } from '../brands/brand';

/** An advocate as the API answers (status and deactivated_at included): with the link they share (their first code's). */
export type AdvocateView = Advocate & { share_link: string | null };

export function advocateView(brand: Brand, advocate: Advocate): AdvocateView {
  const code = advocate.referral_codes[0];
  return { ...advocate, share_link: code ? shareLink(brand, code) : null };
}

export interface AdvocatePage {
  advocates: AdvocateView[];
  has_more: boolean;
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: number | null;
}

/**
 * A brand's advocates in the order they joined, a page at a time (`cursor`: the last advocate id
 * seen), optionally those whose email or name contains `q` or who have the code `q`, only those
 * of one `status`, and only those changed at or after `updated_since` (their details, codes or
 * status: what a connector that provisions codes at checkout pulls).
 */
export async function listAdvocatePage(
  db: Executor,
  brand: Brand,
  query: { q?: string; status?: AdvocateStatus; cursor?: number; updated_since?: Date; limit: number },
): Promise<AdvocatePage> {
  const rows: Array<{ advocate_id: string }> = await db('advocates as a')
    .select('a.advocate_id')
    .where('a.brand_id', brand.brand_id)
    .modify((builder) => {
      if (query.cursor !== undefined) builder.andWhere('a.advocate_id', '>', query.cursor);
      if (query.status !== undefined) builder.andWhere('a.status', query.status);
      if (query.updated_since !== undefined) builder.andWhere('a.updated_at', '>=', query.updated_since);
      if (query.q) {
        const like = `%${query.q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
        builder.andWhere((match) =>
          match
            .whereILike('a.email', like)
            .orWhereILike('a.first_name', like)
            .orWhereILike('a.last_name', like)
            .orWhereExists((code) => code.select(db.raw('1')).from('referral_codes as c').whereRaw('c.brand_id = a.brand_id AND c.advocate_id = a.advocate_id').andWhere('c.code_normalized', normalizeCode(query.q!))),
        );
      }
    })
    .orderBy('a.advocate_id')
    .limit(query.limit + 1);
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const advocates = await advocatesByIds(db, brand.brand_id, page.map((row) => Number(row.advocate_id)));
  return { advocates: advocates.map((advocate) => advocateView(brand, advocate)), has_more: hasMore, next_cursor: hasMore ? advocates[advocates.length - 1]!.advocate_id : null };
}
