import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import { type WriteBatcher, type WriteBatcherOptions, createWriteBatcher } from '../db/write-batcher';
import { recordRefund } from './record-refund';
import type { RefundInput, RefundResult } from './refund-input';

export interface BrandRefund {
  brand: Brand;
  refund: RefundInput;
}

export type RefundBatchOptions = Omit<WriteBatcherOptions<BrandRefund, RefundResult>, 'write' | 'keyOf'>;

/** The row a refund locks (its conversion by order or id, else its claim): refunds of one order are written in arrival order. */
function refundKey({ brand, refund }: BrandRefund): string {
  const target = refund.order_id != null ? `o:${refund.order_id}` : refund.conversion_id != null ? `c:${refund.conversion_id}` : `l:${refund.claim_id ?? ''}`;
  return `${brand.brand_id}:${target}`;
}

/** recordRefund with group commit (core/db/write-batcher.ts): refunds arriving together share one transaction. */
export function createRefundBatcher(db: Knex, options: RefundBatchOptions = {}): WriteBatcher<BrandRefund, RefundResult> {
  return createWriteBatcher<BrandRefund, RefundResult>(db, { ...options, keyOf: refundKey, write: (trx, { brand, refund }) => recordRefund(trx, brand, refund) });
}
