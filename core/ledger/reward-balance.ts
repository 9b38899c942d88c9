import { z } from 'zod';

/**
 * An advocate's figures (docs/merchants/reward-lifecycle.md "Balance figures"), in major units of
 * the brand's currency: the one shape GET /api/v1/advocates/{id}/balance, the CLI's `advocate
 * balance` and the OpenAPI document give, each field described once here.
 */
export const rewardBalanceSchema = z.object({
  advocate_id: z.number().int(),
  currency: z.string().describe("The brand's currency: every entry of the ledger is in it, so a balance never mixes two"),
  credited: z.number().describe('Ever credited as approved (spendable) money: the `credit` entries'),
  reversed: z.number().describe('Taken back from approved money by refunds'),
  redeemed: z.number().describe('Spent by advocate claims, net of what their refunds gave back'),
  balance: z
    .number()
    .describe('What the advocate can spend now: approved − redeemed (+ pending where the brand lets pending be spent); below zero when they owe (see owed)'),
  pending: z.number().describe('Held: pending and in-review rewards, net of refunds during the hold'),
  approved: z
    .number()
    .describe('Approved and neither paid out nor issued: credited − reversed − approved money voided − paid − issued; below zero when refunds took back money already paid out or issued (see owed)'),
  paid: z.number().describe('Paid out (payouts mark-paid)'),
  issued: z.number().describe("Handed out to spend on the store as single-use codes or store credit (a coupon or store_credit brand's fulfilment), net of what unused codes gave back and store credit debited back after refunds"),
  voided: z.number().describe('Voided, held or approved'),
  payable: z.number().describe('What a payout may pay now: approved − redeemed, at least 0'),
  owed: z
    .number()
    .describe('What the advocate owes: refunds or voids took back money already paid out or spent, beyond what they have (redeemed − approved, at least 0); their next rewards pay it off first'),
});
export type RewardBalance = z.infer<typeof rewardBalanceSchema>;
