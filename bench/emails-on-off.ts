import type { BenchSetup } from './bench-setup';
import type { Scenario, ScenarioResult } from './load-scenario';
import { newConversion } from './request-bodies';

export interface EmailsOnOff {
  /** Mean conversions/s of the two runs each way. */
  on: number;
  off: number;
  /** Messages the SMTP sink accepted, and the most seconds the outbox took to empty after an "on" run. */
  sent: number;
  drainSeconds: number;
}

/** Waits until no program email is queued or sending (the worker has sent the run's backlog); returns the seconds it took. */
async function untilOutboxEmpty(setup: BenchSetup, timeoutMs = 300_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const count = Number((await setup.db('mail_messages').whereIn('status', ['queued', 'sending']).count({ count: '*' }).first())?.count ?? 0);
    if (Number(count) === 0) return (Date.now() - started) / 1000;
    if (Date.now() - started > timeoutMs) throw new Error(`${count} program emails still queued after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Conversion ingest at 64 connections with the brand's reward emails off, on, on, off (ABBA, so a
 * drift of the machine weighs both sides alike), each run starting with an empty outbox: every
 * credited conversion writes its reward_earned row in the batch's transaction, and the server's
 * mail worker sends it through SMTP while the load runs.
 */
export async function emailsOnAndOff(setup: BenchSetup, measure: (planned: Scenario) => Promise<ScenarioResult>, seconds: number): Promise<EmailsOnOff> {
  const { db, tenant } = setup;
  const throughput = { on: [] as number[], off: [] as number[] };
  let drainSeconds = 0;
  const sentBefore = setup.smtp.accepted();
  for (const on of [false, true, true, false]) {
    await db('brands').where({ brand_id: tenant.brandId }).update({ email_reward_earned: on, email_reward_approved: on });
    const name = `conversion ingest, reward emails ${on ? 'on' : 'off'}`;
    const result = await measure(setup.scenario(name, '/api/v1/track/conversion', 64, 201, newConversion(tenant.codes), seconds));
    (on ? throughput.on : throughput.off).push(result.throughput);
    drainSeconds = Math.max(drainSeconds, await untilOutboxEmpty(setup));
  }
  await db('brands').where({ brand_id: tenant.brandId }).update({ email_reward_earned: true, email_reward_approved: true });
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return { on: mean(throughput.on), off: mean(throughput.off), sent: setup.smtp.accepted() - sentBefore, drainSeconds };
}
