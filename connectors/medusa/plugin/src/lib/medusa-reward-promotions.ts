import type { CreatePromotionDTO, MedusaContainer, PromotionDTO } from '@medusajs/framework/types';
import type { QueryGraph } from './order-graph';
import type { RewardPromotionGateway } from './reward-codes';

/** Medusa's promotion workflows (@medusajs/medusa/core-flows, the plugin's peer dependency), as far as the plugin calls them. */
interface PromotionWorkflows {
  createPromotionsWorkflow(container: MedusaContainer): { run(args: { input: { promotionsData: CreatePromotionDTO[] } }): Promise<{ result: PromotionDTO[] }> };
  deletePromotionsWorkflow(container: MedusaContainer): { run(args: { input: { ids: string[] } }): Promise<unknown> };
}

const workflows = () => require('@medusajs/medusa/core-flows') as PromotionWorkflows;

/** The reward codes' gateway inside Medusa: query.graph reads promotions (with the uses Medusa counted) and customers, the promotion workflows write. */
export function medusaRewardPromotionGateway(container: MedusaContainer): RewardPromotionGateway {
  const query = container.resolve<QueryGraph>('query');
  return {
    async findByCode(code) {
      const { data } = await query.graph({ entity: 'promotion', fields: ['id', 'code', 'metadata', 'used'], filters: { code } });
      const found = (data as Array<{ id: string; code: string; metadata: Record<string, unknown> | null; used: number | null }>).find((promotion) => promotion.code === code);
      return found ? { id: found.id, metadata: found.metadata, used: Number(found.used ?? 0) } : null;
    },

    async customerIdsByEmail(email) {
      // As typed at sign-up and as Medusa may have kept it: both spellings.
      const spellings = [...new Set([email, email.toLowerCase()])];
      const { data } = await query.graph({ entity: 'customer', fields: ['id'], filters: { email: spellings } });
      return (data as Array<{ id: string }>).map((customer) => customer.id);
    },

    async create(spec) {
      const { result } = await workflows().createPromotionsWorkflow(container).run({
        input: {
          promotionsData: [
            {
              code: spec.code,
              type: 'standard',
              status: 'active',
              is_automatic: false,
              limit: spec.limit,
              application_method: spec.application_method,
              rules: spec.rules,
              metadata: { ...spec.metadata },
            },
          ],
        },
      });
      return result[0]!.id;
    },

    async delete(promotionId) {
      await workflows().deletePromotionsWorkflow(container).run({ input: { ids: [promotionId] } });
    },
  };
}
