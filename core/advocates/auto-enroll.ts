import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import type { ConversionInput } from '../conversions/conversion-input';
import { isMailbox } from '../mail/mailbox';
import { createChunk } from './advocate-imports';
import { normalizeEmail } from './normalize';

/**
 * Every paying customer an advocate (brand setting auto_enroll_customers; docs/merchants/storefront.md): a
 * paid order of such a brand asks for its customer's enrolment in its own transaction — a row per
 * brand and address, so repeats, retries and several orders ask once — and the advocates worker
 * creates them with their code and welcome email (processEnrollments). Brands without the switch
 * pay nothing on the paid-order path.
 */
export async function askEnrollment(trx: Knex.Transaction, brand: Brand, input: Pick<ConversionInput, 'email' | 'customer_name'>): Promise<void> {
  if (!brand.auto_enroll_customers || !input.email || !isMailbox(input.email)) return;
  await trx('advocate_enrollments')
    .insert({ brand_id: brand.brand_id, email_normalized: normalizeEmail(input.email), email: input.email.trim(), first_name: firstNameOf(input.customer_name, input.email) })
    .onConflict(['brand_id', 'email_normalized'])
    .ignore();
}

/** The customer's first name, else the address's first word ("jane.doe@…" → "Jane"), for the welcome email's greeting. */
export function firstNameOf(customerName: string | null | undefined, email: string): string {
  const named = customerName?.trim().split(/\s+/)[0];
  if (named) return named.slice(0, 100);
  const word = email.split('@')[0]!.split(/[^\p{L}]+/u).find(Boolean) ?? 'there';
  return (word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()).slice(0, 100);
}

/**
 * Creates up to `limit` asked-for advocates (each brand's in one set-based chunk, with the welcome
 * email; an address that already is an advocate is simply done) and deletes their rows, in one
 * transaction; rows another process works are skipped. Returns how many it worked.
 */
export async function processEnrollments(db: Knex, options: { limit: number; brandId?: string }): Promise<number> {
  return db.transaction(async (trx) => {
    const rows: Array<{ brand_id: string; email: string; email_normalized: string; first_name: string }> = await trx('advocate_enrollments')
      .modify((query) => {
        if (options.brandId) query.where('brand_id', options.brandId);
      })
      .orderBy('created_at')
      .limit(options.limit)
      .forUpdate()
      .skipLocked()
      .select('brand_id', 'email', 'email_normalized', 'first_name');
    const byBrand = new Map<string, typeof rows>();
    for (const row of rows) byBrand.set(row.brand_id, [...(byBrand.get(row.brand_id) ?? []), row]);
    for (const [brandId, asked] of byBrand) {
      await createChunk(trx, brandId, asked.map((row, line) => ({ line, email: row.email, first_name: row.first_name })), true);
      await trx('advocate_enrollments').where({ brand_id: brandId }).whereIn('email_normalized', asked.map((row) => row.email_normalized)).delete();
    }
    return rows.length;
  });
}
