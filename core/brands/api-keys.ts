import { randomBytes, randomUUID } from 'node:crypto';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { brandChanged } from './brand-changes';
import { decryptSecret, encryptSecret, hashApiKey } from './key-encryption';

/**
 * A secret key (`rk_…`) works on every route and stays on the merchant's server; a publishable key
 * (`pk_…`) may sit in a storefront page: it only records visits and lets shoppers join
 * (docs/merchants/storefront.md). The kind is in the key itself, so a request's key is judged before any look-up.
 */
export const API_KEY_KINDS = ['secret', 'publishable'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

export const isPublishableKey = (apiKey: string) => apiKey.startsWith('pk_');

export interface ApiKeySummary {
  key_id: string;
  brand_id: string;
  kind: ApiKeyKind;
  key_prefix: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedApiKey extends ApiKeySummary {
  /** The plaintext key: shown once, never stored. */
  api_key: string;
}

/** 32 random bytes (256 bits), URL-safe, with a prefix that says its kind. */
function generateApiKey(kind: ApiKeyKind): string {
  return `${kind === 'publishable' ? 'pk' : 'rk'}_${randomBytes(32).toString('base64url')}`;
}

interface ApiKeyRow {
  key_id: string;
  brand_id: string;
  key_prefix: string;
  key_encrypted: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

function toSummary(row: ApiKeyRow): ApiKeySummary {
  return {
    key_id: row.key_id,
    brand_id: row.brand_id,
    kind: isPublishableKey(row.key_prefix) ? 'publishable' : 'secret',
    key_prefix: row.key_prefix,
    label: row.label,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
  };
}

export async function createApiKey(
  db: Executor,
  brandId: string,
  encryptionSecret: string,
  label: string | null = null,
  kind: ApiKeyKind = 'secret',
): Promise<IssuedApiKey> {
  const apiKey = generateApiKey(kind);
  const [row] = await db('api_keys')
    .insert({
      brand_id: brandId,
      key_id: randomUUID(),
      key_hash: hashApiKey(apiKey),
      key_prefix: apiKey.slice(0, 10),
      key_encrypted: encryptSecret(apiKey, encryptionSecret),
      label,
    })
    .returning('*');
  return { ...toSummary(row as ApiKeyRow), api_key: apiKey };
}

export async function listApiKeys(db: Executor, brandId: string): Promise<ApiKeySummary[]> {
  const rows: ApiKeyRow[] = await db('api_keys').where({ brand_id: brandId }).orderBy('created_at');
  return rows.map(toSummary);
}

export async function revokeApiKey(db: Executor, brandId: string, keyId: string): Promise<ApiKeySummary> {
  const [row] = await db('api_keys')
    .where({ brand_id: brandId, key_id: keyId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning('*');
  if (!row) throw new NotFound(`key ${keyId} not found for brand ${brandId}`);
  await brandChanged(db, brandId);
  return toSummary(row as ApiKeyRow);
}

export interface KeyOwner {
  key_id: string;
  brand_id: string;
  revoked: boolean;
}

/** Who owns this plaintext key, if anyone (revoked keys are reported, not hidden). */
export async function findKeyOwner(db: Executor, apiKey: string): Promise<KeyOwner | null> {
  const row: Pick<ApiKeyRow, 'key_id' | 'brand_id' | 'revoked_at'> | undefined = await db('api_keys')
    .select('key_id', 'brand_id', 'revoked_at')
    .where({ key_hash: hashApiKey(apiKey) })
    .first();
  if (!row) return null;
  return { key_id: row.key_id, brand_id: row.brand_id, revoked: row.revoked_at !== null };
}

/** The plaintext of every active key of a brand: the candidate secrets for a webhook signature. */
export async function activeKeySecrets(db: Executor, brandId: string, encryptionSecret: string): Promise<string[]> {
  // A publishable key is public: it signs nothing.
  const rows: Array<Pick<ApiKeyRow, 'key_encrypted'>> = await db('api_keys')
    .select('key_encrypted')
    .where({ brand_id: brandId })
    .whereNull('revoked_at')
    .whereNot('key_prefix', 'like', 'pk\\_%');
  return rows.map((row) => decryptSecret(row.key_encrypted, encryptionSecret));
}

/** An active publishable key in full: public by design (it sits in the store's pages), so the merchant may see it any time. */
export interface PublishableKey {
  key_id: string;
  label: string | null;
  api_key: string;
}

/** The brand's active publishable keys, oldest first, in full. */
export async function publishableKeys(db: Executor, brandId: string, encryptionSecret: string): Promise<PublishableKey[]> {
  const rows: Array<Pick<ApiKeyRow, 'key_id' | 'label' | 'key_encrypted'>> = await db('api_keys')
    .select('key_id', 'label', 'key_encrypted')
    .where({ brand_id: brandId })
    .whereNull('revoked_at')
    .where('key_prefix', 'like', 'pk\\_%')
    .orderBy('created_at');
  return rows.map((row) => ({ key_id: row.key_id, label: row.label, api_key: decryptSecret(row.key_encrypted, encryptionSecret) }));
}
