import fs from 'node:fs';
import { getAdvocate } from '../../core/advocates/advocates';
import { getBrand } from '../../core/brands/brand';
import { inTransaction } from '../../core/db/transaction';
import { currencyExponent } from '../../core/currency';
import { amountFromMinor, toMinor } from '../../core/money';
import { payoutCandidates } from '../../core/payouts/payouts';
import { recordPayouts } from '../../core/program/merchant-changes';
import { listRewards } from '../../core/rewards/list-rewards';
import { REWARD_STATUSES } from '../../core/rewards/reward-status';
import { approveDueRewards, approveReward, voidReward } from '../../core/rewards/reward-transitions';
import { brandFlag, choiceFlag, numberFlag, optionalFlag, requiredFlag } from './args';
import { CliError } from './cli-error';
import { type Command, TextOutput, flagsFirst } from './command';
import { parsePaidCsv, payoutsCsv } from './payouts-csv';
import { CLI_OPERATOR } from './user-commands';

/** Who made a transition from the command line, in the ledger and the audit log. */
const CLI_ACTOR = CLI_OPERATOR.name;

function rewardFlag(flags: Parameters<Command['run']>[0]): number {
  const rewardId = numberFlag(flags, 'reward', { integer: true });
  if (rewardId === undefined || rewardId === 0) throw new CliError('--reward is required (a reward id)');
  return rewardId;
}

/** `referrals rewards …` and `referrals payouts …` (docs/merchants/reward-lifecycle.md). */
export const rewardCommands: Record<string, Command> = {
  'rewards approve-due': {
    usage: 'rewards approve-due [--json]   (approves every pending reward whose hold has ended, all brands; safe to run anywhere, any time)',
    async run(_flags, { db }) {
      return approveDueRewards(db);
    },
  },
  'rewards approve': flagsFirst(
    'rewards approve --brand ID --reward REWARD_ID [--reason TEXT] [--json]',
    (flags) => ({ brandId: brandFlag(flags), rewardId: rewardFlag(flags), reason: optionalFlag(flags, 'reason') ?? null }),
    ({ brandId, rewardId, reason }, { db }) =>
      inTransaction(db, async (trx) => ({
        reward: await approveReward(trx, await getBrand(trx, brandId), { reward_id: rewardId, actor: CLI_ACTOR, reason }),
      })),
  ),
  'rewards void': flagsFirst(
    'rewards void --brand ID --reward REWARD_ID --reason TEXT [--json]',
    (flags) => ({ brandId: brandFlag(flags), rewardId: rewardFlag(flags), reason: requiredFlag(flags, 'reason') }),
    ({ brandId, rewardId, reason }, { db }) =>
      inTransaction(db, async (trx) => ({
        reward: await voidReward(trx, await getBrand(trx, brandId), { reward_id: rewardId, actor: CLI_ACTOR, reason }),
      })),
  ),
  'rewards list': flagsFirst(
    'rewards list --brand ID [--status in_review|pending|approved|voided] [--advocate ADVOCATE_ID] [--limit N] [--cursor REWARD_ID] [--json]',
    (flags) => {
      const brandId = brandFlag(flags);
      const limit = numberFlag(flags, 'limit', { integer: true }) ?? 50;
      if (limit < 1 || limit > 1000) throw new CliError('--limit must be from 1 to 1000');
      const query = {
        status: choiceFlag(flags, 'status', REWARD_STATUSES),
        advocate_id: numberFlag(flags, 'advocate', { integer: true }),
        limit,
        cursor: numberFlag(flags, 'cursor', { integer: true }),
      };
      return { brandId, query };
    },
    async ({ brandId, query }, { db }) => {
      await getBrand(db, brandId);
      if (query.advocate_id !== undefined) await getAdvocate(db, brandId, query.advocate_id);
      return listRewards(db, brandId, query);
    },
  ),
  'payouts export': flagsFirst(
    'payouts export --brand ID [--min 25.00] [--csv | --json]   (approved, unpaid balances per advocate)',
    (flags) => {
      const brandId = brandFlag(flags);
      const min = optionalFlag(flags, 'min') ?? '0';
      if (!/^\d{1,12}(\.\d{1,4})?$/.test(min)) throw new CliError(`--min must be an amount such as 25.00 (got "${min}")`);
      return { brandId, min: Number(min), csv: Boolean(flags.csv) };
    },
    async ({ brandId, min, csv }, { db }) => {
      const brand = await getBrand(db, brandId);
      const payouts = await payoutCandidates(db, brand, min);
      if (csv) return new TextOutput(payoutsCsv(payouts));
      const exponent = currencyExponent(brand.currency);
      const total = payouts.reduce((sum, line) => sum + toMinor(line.amount, exponent), 0);
      return { payouts, count: payouts.length, currency: brand.currency, total: amountFromMinor(total, exponent) };
    },
  ),
  'payouts mark-paid': flagsFirst(
    'payouts mark-paid --brand ID --file paid.csv [--json]   (the export\'s CSV, once paid; the same file again changes nothing)',
    (flags) => ({ brandId: brandFlag(flags), file: requiredFlag(flags, 'file') }),
    async ({ brandId, file }, { db }) => {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`--file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      const rows = parsePaidCsv(text);
      return inTransaction(db, async (trx) => recordPayouts(trx, await getBrand(trx, brandId), rows, CLI_ACTOR));
    },
  ),
};
