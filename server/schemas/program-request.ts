import { z } from 'zod';
import { API_KEY_KINDS } from '../../core/brands/api-keys';
import { type Brand, brandSettingsSchema } from '../../core/brands/brand';
import { Invalid } from '../../core/errors';
import { text } from './fields';

/** GET /api/v1/payouts: the smallest payable amount to list (major units of the brand's currency). */
export const payoutsQuerySchema = z.object({
  min: z.string().regex(/^\d{1,12}(\.\d{1,4})?$/, { error: 'must be an amount such as 25.00' }).transform(Number).optional(),
});

/** POST /api/v1/payouts/mark-paid: the payouts a merchant paid, as listed by GET /payouts; each payout id is recorded once. */
export const markPaidSchema = z.object({
  payouts: z
    .array(
      z.object({
        payout_id: z.string().trim().min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
        advocate_id: z.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' }).positive({ error: 'must be a positive integer' }),
        amount: z.number({ error: 'must be a positive amount' }).positive({ error: 'must be a positive amount' }),
      }),
    )
    .min(1, { error: 'must list at least one payout' })
    .max(10_000, { error: 'must list at most 10,000 payouts' }),
});

/** POST /api/v1/api-keys: what the key is for, and its kind (secret by default; publishable for a storefront page). */
export const createApiKeySchema = z.object({
  label: text().optional(),
  kind: z.enum(API_KEY_KINDS, { error: `must be one of ${API_KEY_KINDS.join(', ')}` }).optional(),
});

/**
 * PATCH /api/v1/brand: the program's settings a merchant changes (the plan and the currency are
 * the operator's). The same schema as the brand's own (core/brands/brand.ts), every field optional.
 */
export const brandPatchSchema = brandSettingsSchema
  .extend({ name: z.string().trim().min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }) })
  .partial()
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, { error: 'name at least one setting to change' });

/** A percentage reward or discount is at most 100, whichever of type and value the patch changes. */
export function percentagesWithin(brand: Brand, patch: z.infer<typeof brandPatchSchema>): void {
  const [first] = percentageProblems(brand, patch);
  if (first) throw new Invalid(first);
}

/** Every percentage over 100 the change would leave, each a message starting with its field. */
export function percentageProblems(brand: Brand, patch: z.infer<typeof brandPatchSchema>): string[] {
  const problems: string[] = [];
  for (const [type, value] of [['reward_type', 'reward_value'], ['referee_discount_type', 'referee_discount_value']] as const) {
    if ((patch[type] ?? brand[type]) === 'percentage' && (patch[value] ?? brand[value]) > 100) problems.push(`${value} is a percentage and must be at most 100`);
  }
  return problems;
}
