import { amountProblems } from '../core/brands/amounts-in-currency';
import { Invalid } from '../core/errors';
import type { Brand } from '../core/brands/brand';
import type { Ctx } from './app-context';
import { type brandPatchSchema, percentageProblems } from './schemas/program-request';
import type { z } from 'zod';

/**
 * The checks a settings change passes before it is saved, beyond its schema: a percentage is at
 * most 100, an amount is whole minor units of the brand's currency, and every connector can apply
 * the result on its platform (a Shopify code discount cannot cap a percentage). A refusal is
 * core's Invalid naming the field.
 */
export async function checkProgramSettings(ctx: Ctx, brand: Brand, patch: z.infer<typeof brandPatchSchema>): Promise<void> {
  const [first] = await programSettingsProblems(ctx, brand, patch);
  if (first) throw new Invalid(first);
}

/**
 * All of those checks' refusals at once (a form shows every one beside its field), each a message
 * starting with its field. The platforms are asked only about a change that passes the rest: what
 * they can apply is a question about valid settings.
 */
export async function programSettingsProblems(ctx: Ctx, brand: Brand, patch: z.infer<typeof brandPatchSchema>): Promise<string[]> {
  const problems = [...percentageProblems(brand, patch), ...amountProblems(brand.currency, patch)];
  if (problems.length > 0) return problems;
  const { db, connectors } = ctx.app.context.deps;
  const next = { ...brand, ...patch } as Brand;
  for (const connector of connectors ?? []) {
    try {
      await connector.checkSettings?.(db, brand, next);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      problems.push(error.message);
    }
  }
  return problems;
}
