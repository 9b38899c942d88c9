import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import type { NewRewardOptions } from '../rewards/reward-records';
import type { ConversionInput } from './conversion-input';
import { type ExistingConversion, brandOrderKey, upgradesOnRepeat } from './conversion-records';
import { type ConversionView, toConversionView } from './conversion-view';
import type { PaidOrder, PaidOrderResult, PaidOrderStore } from './paid-order';
import { findConversionsOfOrders } from './paid-order-batch';

/**
 * A repeat is answered as stored (a pending one reported completed is upgraded first), with its
 * review as it stands now: the rules are not run again, and it emits no conversion.created.
 */
export async function answerRepeat(
  store: PaidOrderStore,
  brand: Brand,
  existing: ExistingConversion,
  input: ConversionInput,
  rewardOptions: NewRewardOptions,
): Promise<PaidOrderResult> {
  return repeatAnswer(await store.completeRepeat(brand, existing, input, rewardOptions), existing);
}

function repeatAnswer(conversion: ConversionView, existing: ExistingConversion): PaidOrderResult {
  return { result: { attributed: true, duplicate: true, conversion, review: existing.review }, claim_id: conversion.claim_id };
}

/**
 * A batch of repeats that write nothing (each order's conversion recorded, not a pending one now
 * reported completed, its brand active) answered from one read and no transaction: what
 * answerRepeat gives each of them. Otherwise the conversions read, for the batch's transaction
 * (PaidOrderBatch.read) not to read them again.
 */
export async function answerRepeatsAlone(db: Knex, items: PaidOrder[]): Promise<{ results: PaidOrderResult[] } | { read: Map<string, ExistingConversion> }> {
  const read = await findConversionsOfOrders(db, items);
  const results: PaidOrderResult[] = [];
  for (const { brand, order } of items) {
    const input = order.conversion;
    const existing = input.order_id === null ? undefined : read.get(brandOrderKey(brand.brand_id, input.order_id));
    if (brand.status !== 'active' || !existing || upgradesOnRepeat(existing, input)) return { read };
    results.push(repeatAnswer(toConversionView(existing), existing));
  }
  return { results };
}
