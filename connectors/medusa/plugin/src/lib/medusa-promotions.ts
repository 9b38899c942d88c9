import type { CampaignDTO, CreateCampaignDTO, CreatePromotionDTO, CreatePromotionRuleDTO, MedusaContainer, PromotionDTO, UpdatePromotionDTO } from '@medusajs/framework/types';
import type { ExistingPromotion, PromotionGateway, PromotionSpec } from './promotion-sync';
import type { QueryGraph } from './order-graph';

/**
 * Medusa's promotion workflows (@medusajs/medusa/core-flows, in every Medusa application: the
 * plugin's peer dependency), typed as far as the plugin calls them. Loaded when the sync first
 * runs, inside Medusa.
 */
interface Workflow<Input, Result> {
  (container: MedusaContainer): { run(args: { input: Input }): Promise<{ result: Result }> };
}
interface PromotionWorkflows {
  createPromotionsWorkflow: Workflow<{ promotionsData: CreatePromotionDTO[] }, PromotionDTO[]>;
  updatePromotionsWorkflow: Workflow<{ promotionsData: UpdatePromotionDTO[] }, PromotionDTO[]>;
  updatePromotionsStatusWorkflow: Workflow<{ promotionsData: Array<{ id: string; status: 'active' | 'inactive' }> }, unknown>;
  batchPromotionRulesWorkflow: Workflow<{ id: string; rule_type: 'rules'; create?: CreatePromotionRuleDTO[]; delete?: string[] }, unknown>;
  createCampaignsWorkflow: Workflow<{ campaignsData: CreateCampaignDTO[] }, CampaignDTO[]>;
}

function workflows(): PromotionWorkflows {
  return require('@medusajs/medusa/core-flows') as PromotionWorkflows;
}

/**
 * The campaign of the once-per-customer offer: its budget is `use_by_attribute` on
 * `customer_email`, limit 1, so each email uses one of the brand's referral codes once.
 */
export const onceCampaignIdentifier = (brandId: string) => `referrals-friend-offer-${brandId}`;

/** The gateway inside Medusa: query.graph reads, the promotion workflows write. */
export function medusaPromotionGateway(container: MedusaContainer, brandId: string): PromotionGateway {
  const query = container.resolve<QueryGraph>('query');
  let campaignId: string | null = null;

  const onceCampaign = async (): Promise<string> => {
    if (campaignId) return campaignId;
    const identifier = onceCampaignIdentifier(brandId);
    const { data } = await query.graph({ entity: 'campaign', fields: ['id'], filters: { campaign_identifier: identifier } });
    const found = (data as Array<{ id: string }>)[0];
    if (found) return (campaignId = found.id);
    const { result } = await workflows().createCampaignsWorkflow(container).run({
      input: {
        campaignsData: [
          {
            name: 'Referral friend offer (once per customer)',
            description: 'Made by the referral plugin: each customer email uses one referral code once.',
            campaign_identifier: identifier,
            budget: { type: 'use_by_attribute', attribute: 'customer_email', limit: 1 },
          },
        ],
      },
    });
    return (campaignId = result[0]!.id);
  };

  const campaignOf = async (spec: PromotionSpec): Promise<string | null> => (spec.oncePerCustomer ? onceCampaign() : null);

  return {
    async findByCodes(codes) {
      const { data } = await query.graph({ entity: 'promotion', fields: ['id', 'code', 'status', 'metadata', 'rules.id'], filters: { code: codes } });
      return (data as Array<{ id: string; code: string; status: string; metadata: Record<string, unknown> | null; rules?: Array<{ id: string }> | null }>).map((row) => ({
        id: row.id,
        code: row.code,
        status: row.status,
        metadata: row.metadata,
        rule_ids: (row.rules ?? []).map((rule) => rule.id),
      }));
    },

    async create(specs) {
      const promotionsData: CreatePromotionDTO[] = [];
      for (const spec of specs) {
        const campaign = await campaignOf(spec);
        promotionsData.push({
          code: spec.code,
          type: 'standard',
          status: spec.status,
          is_automatic: false,
          application_method: spec.application_method,
          rules: spec.rules,
          ...(campaign ? { campaign_id: campaign } : {}),
          metadata: { ...spec.metadata },
        });
      }
      await workflows().createPromotionsWorkflow(container).run({ input: { promotionsData } });
    },

    async update(existing: ExistingPromotion, spec) {
      const flows = workflows();
      const { currency_code, ...method } = spec.application_method;
      await flows.updatePromotionsWorkflow(container).run({
        input: {
          promotionsData: [
            {
              id: existing.id,
              status: spec.status,
              application_method: { ...method, ...(currency_code ? { currency_code } : {}) },
              campaign_id: await campaignOf(spec),
              metadata: { ...spec.metadata },
            },
          ],
        },
      });
      if (existing.rule_ids.length > 0 || spec.rules.length > 0) {
        await flows.batchPromotionRulesWorkflow(container).run({ input: { id: existing.id, rule_type: 'rules', create: spec.rules, delete: existing.rule_ids } });
      }
    },

    async setStatus(changes) {
      await workflows().updatePromotionsStatusWorkflow(container).run({ input: { promotionsData: changes } });
    },
  };
}
