import { amountsInCurrency } from '../core/brands/amounts-in-currency';
import type { Brand } from '../core/brands/brand';
import type { Ctx } from './app-context';
import { type brandPatchSchema, percentagesWithin } from './schemas/program-request';
import type { z } from 'zod';

/**
 * The checks a settings change passes before it is saved, beyond its schema: a percentage is at
 * most 100, an amount is whole minor units of the brand's currency, and every connector can apply
 * the result on its platform (a Shopify code discount cannot cap a percentage). A refusal is
 * core's Invalid naming the field.
 */
export async function checkProgramSettings(ctx: Ctx, brand: Brand, patch: z.infer<typeof brandPatchSchema>): Promise<void> {
  percentagesWithin(brand, patch);
  amountsInCurrency(brand.currency, patch);
  const { db, connectors } = ctx.app.context.deps;
  const next = { ...brand, ...patch } as Brand;
  for (const connector of connectors ?? []) await connector.checkSettings?.(db, brand, next);
}
