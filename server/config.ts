import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type MailSettings, loadMailSettings } from './mail/mail-settings';
import { type WebhookSettings, loadWebhookSettings } from './webhooks/webhook-settings';
import type { WriteBatchSettings } from './write-batch-settings';

/** Requests allowed per client IP in each endpoint's window (the spec's limits are the defaults). */
export interface RateLimits {
  visit: number;
  claim: number;
  conversion: number;
  refund: number;
  eligibility: number;
  convert: number;
  /** The rewards endpoints (`/rewards`, `/rewards/{id}`, approve, void), together. */
  rewards: number;
  /** The fraud review queue (GET /reviews, approve, reject). */
  review: number;
  /** Dashboard sign-in link requests (POST /dashboard/sign-in), per hour. */
  signIn: number;
  /** Storefront joins (POST /api/v1/advocates/join), per hour. */
  join: number;
}

export interface Config {
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  trustProxy: boolean;
  keyEncryptionSecret: string;
  logLevel: string;
  rateLimits: RateLimits;
  /**
   * How often (ms) each process shares its rate-limit counts with the others through PostgreSQL
   * (RATE_LIMIT_SYNC_MS, default 200). 0: every limited request waits for the shared total (exact,
   * a round trip each). Absent: the default.
   */
  rateLimitSyncMs?: number;
  /** How long a valid API key's brand is cached (API_KEY_CACHE_SECONDS, default 60; 1 while changes are not heard); absent or 0: not cached. */
  apiKeyCacheSeconds?: number;
  /** Outbound webhooks (WEBHOOK_* variables, server/webhooks/webhook-settings.ts); absent: read from the environment. */
  webhooks?: WebhookSettings;
  /** Program emails (SMTP_URL, MAIL_* variables, server/mail/mail-settings.ts); absent: read from the environment. */
  mail?: MailSettings;
  /** Where merchants open the dashboard (PUBLIC_URL, default http://localhost:PORT): the base of sign-in links. */
  publicUrl?: string;
  /** Group commit of the ingest routes (CONVERSION_BATCH_* variables, server/write-batch-settings.ts); absent fields: from the environment. */
  writeBatch?: Partial<WriteBatchSettings>;
  /**
   * Whether a dashboard sign-in stores the last 90, then 366, days' report figures in the background
   * (DASHBOARD_WARM_REPORTS, default true). Off, each page stores the days it shows when it first
   * needs them. Absent: on.
   */
  warmReportsOnSignIn?: boolean;
}

/** How often a process shares its rate-limit counts when RATE_LIMIT_SYNC_MS is not set. */
export const DEFAULT_RATE_LIMIT_SYNC_MS = 200;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  visit: 100,
  claim: 20,
  conversion: 20,
  refund: 20,
  eligibility: 100,
  convert: 100,
  rewards: 100,
  review: 100,
  signIn: 10,
  join: 20,
};

function integerSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, least: number, must: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be ${must}, got "${raw}"`);
  return value;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return integerSetting(env, name, fallback, 1, 'a positive integer');
}

function booleanSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new Error(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

/**
 * The secret that encrypts API keys at rest. Without KEY_ENCRYPTION_SECRET a random one is kept in
 * the data directory so a developer's `npm start` and `npx referrals` agree; production sets it.
 * Written whole under another name, then linked into place: of two processes making it at once,
 * the first link wins and both read that one.
 */
function keyEncryptionSecret(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.KEY_ENCRYPTION_SECRET) return env.KEY_ENCRYPTION_SECRET;
  const file = path.resolve(dataDir, 'key-encryption-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const draft = `${file}.${process.pid}.draft`;
    fs.writeFileSync(draft, randomBytes(32).toString('base64url'), { mode: 0o600 });
    try {
      fs.linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/** PUBLIC_URL without its trailing slash; an origin (and optional path prefix) over http or https. */
function publicUrl(env: NodeJS.ProcessEnv, port: number): string {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw) return `http://localhost:${port}`;
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) throw new Error(`PUBLIC_URL must be an http(s) URL like https://referrals.example.com, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** Where the service is reached from outside: PUBLIC_URL, else this machine's port (a config built by hand may lack it). */
export function publicUrlOf(config: Pick<Config, 'publicUrl' | 'port'>): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = env.DATA_DIR || './.data';
  const port = positiveInt(env, 'PORT', 3000);
  let secret: string | undefined;
  return {
    port,
    publicUrl: publicUrl(env, port),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    trustProxy: env.TRUST_PROXY === 'true',
    // Read (and made, the first time) when something needs it: a CLI typo leaves the data directory as it was.
    get keyEncryptionSecret() {
      return (secret ??= keyEncryptionSecret(env, dataDir));
    },
    logLevel: env.LOG_LEVEL || 'info',
    rateLimits: {
      visit: positiveInt(env, 'RATE_LIMIT_VISIT', DEFAULT_RATE_LIMITS.visit),
      claim: positiveInt(env, 'RATE_LIMIT_CLAIM', DEFAULT_RATE_LIMITS.claim),
      conversion: positiveInt(env, 'RATE_LIMIT_CONVERSION', DEFAULT_RATE_LIMITS.conversion),
      refund: positiveInt(env, 'RATE_LIMIT_REFUND', DEFAULT_RATE_LIMITS.refund),
      eligibility: positiveInt(env, 'RATE_LIMIT_ELIGIBILITY', DEFAULT_RATE_LIMITS.eligibility),
      convert: positiveInt(env, 'RATE_LIMIT_CONVERT', DEFAULT_RATE_LIMITS.convert),
      rewards: positiveInt(env, 'RATE_LIMIT_REWARDS', DEFAULT_RATE_LIMITS.rewards),
      review: positiveInt(env, 'RATE_LIMIT_REVIEW', DEFAULT_RATE_LIMITS.review),
      signIn: positiveInt(env, 'RATE_LIMIT_SIGN_IN', DEFAULT_RATE_LIMITS.signIn),
      join: positiveInt(env, 'RATE_LIMIT_JOIN', DEFAULT_RATE_LIMITS.join),
    },
    rateLimitSyncMs: integerSetting(env, 'RATE_LIMIT_SYNC_MS', DEFAULT_RATE_LIMIT_SYNC_MS, 0, 'a whole number of milliseconds (0 or more)'),
    apiKeyCacheSeconds: env.API_KEY_CACHE_SECONDS === '0' ? 0 : positiveInt(env, 'API_KEY_CACHE_SECONDS', 60),
    webhooks: loadWebhookSettings(env),
    mail: loadMailSettings(env),
    warmReportsOnSignIn: booleanSetting(env, 'DASHBOARD_WARM_REPORTS', true),
  };
}
