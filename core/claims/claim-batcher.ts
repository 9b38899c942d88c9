import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { type WriteBatcher, type WriteBatcherOptions, createWriteBatcher } from '../db/write-batcher';
import type { ClaimInput } from './claim-input';
import { type ClaimView, createClaim } from './create-claim';

export interface BrandClaim {
  brand: Brand;
  claim: ClaimInput;
}

export type ClaimBatchOptions = Omit<WriteBatcherOptions<BrandClaim, ClaimView>, 'write' | 'keyOf'>;

/** A customer's claims at a brand are decided one at a time (createClaim's lock): in arrival order within a batch. */
function claimKey({ brand, claim }: BrandClaim): string {
  return `${brand.brand_id}:${normalizeEmail(claim.email)}`;
}

/** createClaim with group commit (core/db/write-batcher.ts): claims arriving together share one transaction. */
export function createClaimBatcher(db: Knex, options: ClaimBatchOptions = {}): WriteBatcher<BrandClaim, ClaimView> {
  return createWriteBatcher<BrandClaim, ClaimView>(db, { ...options, keyOf: claimKey, write: (trx, { brand, claim }) => createClaim(trx, brand, claim) });
}
