import { createClaim } from '../../core/claims/create-claim';
import { currencyExponent } from '../../core/currency';
import { inTransaction } from '../../core/db/transaction';
import { exactMinor } from '../../core/money';
import type { Ctx } from '../app-context';
import { parseJsonObject } from '../middleware/json-body';
import { parseConvertRequest } from '../schemas/convert-request';

/** POST /api/v1/convert (signed webhook): 201 with the pending claim; 409 with the existing claim_id. */
export async function convert(ctx: Ctx): Promise<void> {
  const input = parseConvertRequest(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  // Checked here too so the refusal names this endpoint's field (`value`, the claim's raw_value).
  exactMinor(input.raw_value ?? 0, currencyExponent(brand.currency), 'value', brand.currency);
  const claim = await inTransaction(ctx.app.context.deps.db, (trx) => createClaim(trx, brand, input));
  ctx.status = 201;
  ctx.body = {
    success: true,
    data: {
      claim_id: claim.claim_id,
      referral_code: claim.referral_code,
      raw_value: claim.raw_value,
      claim_value: claim.claim_value,
      discount_applied: claim.discount_applied,
      created_at: claim.created_at,
    },
  };
}
