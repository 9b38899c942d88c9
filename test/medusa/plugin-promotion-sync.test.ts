import http from 'node:http';
import { useListeningService } from '../helpers/listen';
import { parsePluginOptions } from '../../connectors/medusa/plugin/src/lib/plugin-options';
import {
  type ExistingPromotion,
  type PromotionGateway,
  type PromotionSpec,
  type SyncState,
  UPDATED_SINCE_OVERLAP_MS,
  serviceReader,
  syncReferralPromotions,
} from '../../connectors/medusa/plugin/src/lib/promotion-sync';
import { shareLinkFor } from '../../connectors/medusa/plugin/src/lib/share-link';
import { type TestBrand, givenBrand } from '../helpers/fixtures';
import type { TestApp } from '../helpers/test-app';

/**
 * The plugin's promotion sync against the real service over HTTP (GET /api/v1/brand, GET
 * /api/v1/advocates?updated_since=), with Medusa's side in memory: the promotions it would hold,
 * and what the workflows were asked to do.
 */

class InMemoryPromotions implements PromotionGateway {
  readonly promotions = new Map<string, { id: string; spec: PromotionSpec; status: string; metadata: Record<string, unknown> }>();
  readonly calls: string[] = [];

  async findByCodes(codes: string[]): Promise<ExistingPromotion[]> {
    return codes.flatMap((code) => {
      const promotion = this.promotions.get(code);
      return promotion ? [{ id: promotion.id, code, status: promotion.status, metadata: promotion.metadata, rule_ids: (promotion.spec.rules ?? []).map((_, i) => `rule_${i}`) }] : [];
    });
  }

  async create(specs: PromotionSpec[]): Promise<void> {
    this.calls.push(`create ${specs.length}`);
    for (const spec of specs) this.promotions.set(spec.code, { id: `promo_${spec.code}`, spec, status: spec.status, metadata: { ...spec.metadata } });
  }

  async update(existing: ExistingPromotion, spec: PromotionSpec): Promise<void> {
    this.calls.push(`update ${existing.code}`);
    this.promotions.set(spec.code, { id: existing.id, spec, status: spec.status, metadata: { ...spec.metadata } });
  }

  async setStatus(changes: Array<{ id: string; status: 'active' | 'inactive' }>): Promise<void> {
    this.calls.push(`status ${changes.length}`);
    for (const change of changes) {
      const promotion = [...this.promotions.values()].find((candidate) => candidate.id === change.id)!;
      promotion.status = change.status;
    }
  }
}

let service: TestApp;
let serviceUrl: string;
useListeningService((listening) => ({ service, serviceUrl } = listening));

function setUp(brand: TestBrand, extra: Record<string, unknown> = {}) {
  const options = parsePluginOptions({ serviceUrl, brandId: brand.brandId, apiKey: brand.apiKey, ...extra });
  const gateway = new InMemoryPromotions();
  let saved: SyncState = { updatedSince: null, offerHash: null };
  const logs: string[] = [];
  const logger = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
  const state = { readSyncState: async () => saved, saveSyncState: async (next: SyncState) => void (saved = next) };
  const sync = () => syncReferralPromotions({ service: serviceReader(options), gateway, state, logger, options });
  return { gateway, sync, logs, state: () => saved };
}

const enrol = async (brand: TestBrand, name: string) => {
  const created = await service.http.post('/api/v1/advocates').set(brand.headers).send({ email: `${name}-${Date.now()}-${Math.random()}@example.com`, first_name: name });
  expect(created.status).toBe(201);
  return created.body.data as { advocate_id: number; referral_codes: string[] };
};

describe('the plugin’s promotion sync', () => {
  it('makes a promotion per referral code mirroring the friend offer, then reads only what changed', async () => {
    const brand = await givenBrand(service.db, {
      plan: 'premier',
      currency: 'EUR',
      store_url: 'https://shop.example.com',
      referee_discount_type: 'percentage',
      referee_discount_value: 15,
      referee_min_purchase: 50,
      referee_first_purchase_only: true,
    });
    const ann = await enrol(brand, 'Ann');
    const bob = await enrol(brand, 'Bob');
    const { gateway, sync, state } = setUp(brand);

    expect(await sync()).toMatchObject({ full: true, advocates: 2, created: 2, skipped: null });
    const annPromotion = gateway.promotions.get(ann.referral_codes[0]!)!;
    expect(annPromotion.spec).toEqual({
      code: ann.referral_codes[0],
      status: 'active',
      application_method: { type: 'percentage', target_type: 'order', allocation: 'across', value: 15 },
      rules: [{ attribute: 'item_subtotal', operator: 'gte', values: ['50'] }],
      oncePerCustomer: true,
      metadata: expect.objectContaining({ referrals_brand_id: brand.brandId, referrals_advocate_id: ann.advocate_id, referral_share_link: `https://shop.example.com/?ref=${ann.referral_codes[0]}` }),
    });
    // The next run asks from the service's clock less the overlap.
    const since = new Date(state().updatedSince!).getTime();
    expect(Math.abs(Date.now() - UPDATED_SINCE_OVERLAP_MS - since)).toBeLessThan(5_000);

    // Nothing changed: nothing written. Older changes outside the overlap are not read again.
    await service.db('advocates').where({ brand_id: brand.brandId }).update({ updated_at: new Date(Date.now() - 3_600_000) });
    expect(await sync()).toMatchObject({ full: false, advocates: 0, created: 0 });

    // A new code, a deactivation: only those advocates are read.
    await service.http.post(`/api/v1/advocates/${ann.advocate_id}/codes`).set(brand.headers).send({ code: `ANN2${Date.now()}` });
    await service.http.post(`/api/v1/advocates/${bob.advocate_id}/deactivate`).set(brand.headers);
    gateway.calls.length = 0;
    expect(await sync()).toMatchObject({ full: false, advocates: 2, created: 1, deactivated: 1, unchanged: 1 });
    expect(gateway.promotions.get(bob.referral_codes[0]!)!.status).toBe('inactive');

    // Reactivated: active again.
    await service.http.post(`/api/v1/advocates/${bob.advocate_id}/reactivate`).set(brand.headers);
    expect(await sync()).toMatchObject({ activated: 1 });
    expect(gateway.promotions.get(bob.referral_codes[0]!)!.status).toBe('active');
  });

  it('updates every promotion when the offer changes (a full pull), and leaves a promotion it did not make alone', async () => {
    const brand = await givenBrand(service.db, { plan: 'premier', currency: 'EUR', referee_discount_type: 'fixed', referee_discount_value: 10, referee_first_purchase_only: false });
    const ann = await enrol(brand, 'Ann');
    const cat = await enrol(brand, 'Cat');
    const { gateway, sync, logs } = setUp(brand, { storefrontUrl: 'https://store.example.com/r/{code}' });
    // The merchant's own promotion already has Cat's code (a coupon code mapped to her, say).
    gateway.promotions.set(cat.referral_codes[0]!, { id: 'promo_own', spec: {} as PromotionSpec, status: 'active', metadata: {} });

    expect(await sync()).toMatchObject({ created: 1, notOurs: [cat.referral_codes[0]] });
    expect(logs.join('\n')).toMatch(/did not make, left as they are/);
    expect(gateway.promotions.get(ann.referral_codes[0]!)!.spec).toMatchObject({
      application_method: { type: 'fixed', value: 10, currency_code: 'eur' },
      rules: [],
      oncePerCustomer: false,
      metadata: { referral_share_link: `https://store.example.com/r/${ann.referral_codes[0]}` },
    });

    expect((await service.http.patch('/api/v1/brand').set(brand.headers).send({ referee_discount_type: 'free_shipping', referee_discount_value: 0 })).status).toBe(200);
    expect(await sync()).toMatchObject({ full: true, updated: 1, created: 0 });
    expect(gateway.promotions.get(ann.referral_codes[0]!)!.spec.application_method).toEqual({ type: 'percentage', target_type: 'shipping_methods', allocation: 'each', value: 100 });
    expect(await sync()).toMatchObject({ full: false, updated: 0 });
  });

  it('provisions nothing, saying why, for a capped percentage (a Medusa promotion has no cap)', async () => {
    const brand = await givenBrand(service.db, { plan: 'premier', currency: 'EUR', referee_discount_type: 'percentage', referee_discount_value: 20, referee_discount_cap: 30 });
    await enrol(brand, 'Ann');
    const { gateway, sync, logs, state } = setUp(brand);
    expect(await sync()).toMatchObject({ created: 0, skipped: expect.stringMatching(/capped at 30 EUR: a Medusa promotion has no cap/) });
    expect(gateway.promotions.size).toBe(0);
    expect(logs.join('\n')).toMatch(/not provisioned as Medusa promotions/);
    expect(state().updatedSince).toBeNull(); // pulled in full once the offer can be expressed
  });

  it('builds share links from the storefrontUrl option, else the brand’s store address', () => {
    expect(shareLinkFor(null, 'https://shop.example.com', 'ANN7')).toBe('https://shop.example.com/?ref=ANN7');
    expect(shareLinkFor('https://shop.example.com/join?utm=ref', null, 'ANN7')).toBe('https://shop.example.com/join?utm=ref&ref=ANN7');
    expect(shareLinkFor('https://shop.example.com/r/{code}', 'https://other.example', 'A B')).toBe('https://shop.example.com/r/A%20B');
    expect(shareLinkFor(null, null, 'ANN7')).toBeNull();
    expect(() => parsePluginOptions({ serviceUrl: 'https://r.example', brandId: '00000000-0000-4000-8000-000000000000', apiKey: 'k', storefrontUrl: 'shop/{code}' })).toThrow(/storefrontUrl must be a storefront URL/);
  });
});
