import type { Brand } from '../brands/brand';
import type { NewRewardOptions } from '../rewards/reward-records';
import type { ConversionInput } from './conversion-input';
import type { ExistingConversion } from './conversion-records';
import type { PaidOrderResult, PaidOrderStore } from './paid-order';

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
  const conversion = await store.completeRepeat(brand, existing, input, rewardOptions);
  return { result: { attributed: true, duplicate: true, conversion, review: existing.review }, claim_id: conversion.claim_id };
}
