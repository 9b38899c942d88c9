import { z } from 'zod';
import { envNumber, parseEnvSettings, wholeNumber } from '../env-number';

const mailSchema = z
  .object({
    SMTP_URL: z
      .string()
      .trim()
      .optional()
      .refine((raw) => !raw || (URL.canParse(raw) && ['smtp:', 'smtps:'].includes(new URL(raw).protocol)), {
        error: 'SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465',
      }),
    MAIL_FROM: z
      .string()
      .trim()
      .optional()
      .refine((raw) => !raw || /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$|^[^\s@<>]+@localhost$/.test(raw), { error: 'MAIL_FROM must be an email address like referrals@example.com' }),
    MAIL_WORKER_INTERVAL_MS: wholeNumber('MAIL_WORKER_INTERVAL_MS', 2_000),
    MAIL_SEND_TIMEOUT_MS: wholeNumber('MAIL_SEND_TIMEOUT_MS', 30_000),
    MAIL_RETRY_SCALE: envNumber('MAIL_RETRY_SCALE', 1, (v) => v > 0 && v <= 1, 'a number above 0 and at most 1'),
  })
  .transform((env) => ({
    /** Where messages go; absent: written as .eml files under DATA_DIR/mail/ (a developer's machine). */
    smtpUrl: env.SMTP_URL || null,
    /** The sender's address; the name shown is the brand's. Absent: referrals@ the PUBLIC_URL's host. */
    from: env.MAIL_FROM || null,
    /** How often each server process looks for due messages. */
    workerIntervalMs: env.MAIL_WORKER_INTERVAL_MS,
    /** One hand-over to the SMTP server, connection to its answer. */
    sendTimeoutMs: env.MAIL_SEND_TIMEOUT_MS,
    /** Multiplies the retry schedule (tests shrink it; 1 in production). */
    retryScale: env.MAIL_RETRY_SCALE,
  }));

export type MailSettings = z.infer<typeof mailSchema>;

/** Mail settings from the environment; a bad value throws, naming the variable. */
export function loadMailSettings(env: NodeJS.ProcessEnv = process.env): MailSettings {
  return parseEnvSettings(mailSchema, env);
}

/** The settings a config carries (tests pass their own), else the environment's. */
export function mailSettingsOf(config: { mail?: MailSettings }): MailSettings {
  return config.mail ?? loadMailSettings();
}
