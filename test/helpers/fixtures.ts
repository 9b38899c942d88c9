import type { Knex } from 'knex';
import { createAdvocate } from '../../core/advocates/advocates';
import { createApiKey } from '../../core/brands/api-keys';
import { type CreateBrandInput, createBrand } from '../../core/brands/brand';
import { TEST_SECRET } from './test-app';

export interface TestBrand {
  brandId: string;
  apiKey: string;
  keyId: string;
  /** Headers that authenticate as this brand. */
  headers: Record<string, string>;
}

let counter = 0;

/** A fresh brand with one API key; every test builds its own. */
export async function givenBrand(db: Knex, input: Partial<CreateBrandInput> = {}): Promise<TestBrand> {
  counter += 1;
  const brand = await createBrand(db, { name: `Brand ${counter}`, plan: 'growth', reward_type: 'fixed', reward_value: 10, ...input });
  const key = await createApiKey(db, brand.brand_id, TEST_SECRET, 'test');
  return {
    brandId: brand.brand_id,
    apiKey: key.api_key,
    keyId: key.key_id,
    headers: { 'X-API-Key': key.api_key, 'X-Brand-ID': brand.brand_id },
  };
}

export async function givenAdvocate(
  db: Knex,
  brandId: string,
  input: { email?: string; first_name?: string; code?: string } = {},
): Promise<{ advocateId: number; code: string; email: string }> {
  counter += 1;
  const email = input.email ?? `advocate${counter}-${Date.now()}@example.com`;
  const advocate = await createAdvocate(db, brandId, { email, first_name: input.first_name ?? 'Ann', code: input.code });
  return { advocateId: advocate.advocate_id, code: advocate.referral_codes[0]!, email };
}

export function uniqueOrderId(): string {
  counter += 1;
  return `order-${Date.now()}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}
