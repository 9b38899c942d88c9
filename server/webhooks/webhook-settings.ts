import { z } from 'zod';
import { envNumber, parseEnvSettings, wholeNumber } from '../env-number';

const webhookSchema = z
  .object({
    WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false', ''], { error: 'WEBHOOK_ALLOW_PRIVATE must be true or false' }).optional(),
    WEBHOOK_TIMEOUT_MS: wholeNumber('WEBHOOK_TIMEOUT_MS', 10_000),
    WEBHOOK_WORKER_INTERVAL_MS: wholeNumber('WEBHOOK_WORKER_INTERVAL_MS', 2_000),
    WEBHOOK_RETRY_SCALE: envNumber('WEBHOOK_RETRY_SCALE', 1, (v) => v > 0 && v <= 1, 'a number above 0 and at most 1'),
    WEBHOOK_DISABLE_AFTER_FAILURES: wholeNumber('WEBHOOK_DISABLE_AFTER_FAILURES', 50),
    WEBHOOK_DISABLE_AFTER_DAYS: envNumber('WEBHOOK_DISABLE_AFTER_DAYS', 5, (v) => v > 0, 'a positive number'),
  })
  .transform((env) => ({
    /** Deliver to private, loopback and link-local addresses too (local development, tests). */
    allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true',
    /** One attempt's limit, connection to last byte; beyond it the attempt failed. */
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    /** How often each server process looks for due deliveries. */
    workerIntervalMs: env.WEBHOOK_WORKER_INTERVAL_MS,
    /** Multiplies the retry schedule (tests shrink it; 1 in production). */
    retryScale: env.WEBHOOK_RETRY_SCALE,
    /** An endpoint is disabled after this many failed attempts in a row ... */
    disableAfterFailures: env.WEBHOOK_DISABLE_AFTER_FAILURES,
    /** ... or after failing, without one success, for this many days. */
    disableAfterDays: env.WEBHOOK_DISABLE_AFTER_DAYS,
  }));

export type WebhookSettings = z.infer<typeof webhookSchema>;

/** Outbound webhook settings from the environment; a bad value throws, naming the variable. */
export function loadWebhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return parseEnvSettings(webhookSchema, env);
}

/** The settings a config carries (tests pass their own), else the environment's. */
export function webhookSettingsOf(config: { webhooks?: WebhookSettings }): WebhookSettings {
  return config.webhooks ?? loadWebhookSettings();
}
