import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { z } from 'zod';
import { approveDueRewards } from '../core/rewards/reward-transitions';
import { parseEnvSettings } from './env-number';
import type { Worker } from './http/connector';

const settingsSchema = z.object({
  REWARD_APPROVAL_INTERVAL_SECONDS: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (!raw) return 60;
      const value = Number(raw);
      if (Number.isInteger(value) && value >= 0) return value;
      ctx.addIssue({ code: 'custom', message: `REWARD_APPROVAL_INTERVAL_SECONDS must be a whole number of seconds (0 = off), got "${raw}"` });
      return z.NEVER;
    }),
});

/** How often the server approves rewards whose hold ended (seconds; 0: never, leave it to `referrals rewards approve-due`). */
export function loadRewardApprovalInterval(env: NodeJS.ProcessEnv = process.env): number {
  return parseEnvSettings(settingsSchema, env).REWARD_APPROVAL_INTERVAL_SECONDS;
}

/**
 * Runs the approval job at start-up and every `intervalSeconds`, one pass at a time. Every server
 * process may run it: approveDueRewards skips rows another process holds, so each reward is
 * approved once. A failed pass is logged and tried again at the next tick.
 */
export function startRewardApproval(deps: { db: Knex; logger: Logger }, intervalSeconds: number): Worker {
  if (intervalSeconds === 0) return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = approveDueRewards(deps.db)
      .then(({ approved }) => {
        if (approved > 0) deps.logger.info({ approved }, 'rewards approved: hold period ended');
      })
      .catch((error) => deps.logger.error({ err: error }, 'reward approval pass failed'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, intervalSeconds * 1000);
  timer.unref();
  setImmediate(run);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
