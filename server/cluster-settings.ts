import { z } from 'zod';

/** WEB_CONCURRENCY is malformed or cannot be honoured: the start is refused with this message. */
export class ClusterSettingError extends Error {}

const webConcurrencySchema = z
  .string()
  .trim()
  .optional()
  .transform((raw, ctx) => {
    if (!raw) return 1;
    const value = Number(raw);
    if (Number.isInteger(value) && value > 0) return value;
    ctx.addIssue({ code: 'custom', message: `WEB_CONCURRENCY must be a positive whole number, got "${raw}"` });
    return z.NEVER;
  });

/**
 * How many server processes share the port (WEB_CONCURRENCY, default 1). More than one needs
 * PostgreSQL: the embedded database lives inside one process and cannot be shared.
 */
export function loadWebConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = webConcurrencySchema.safeParse(env.WEB_CONCURRENCY);
  if (!parsed.success) throw new ClusterSettingError(parsed.error.issues[0]!.message);
  const workers = parsed.data;
  if (workers > 1 && !env.DATABASE_URL) {
    throw new ClusterSettingError(
      `WEB_CONCURRENCY=${workers} needs PostgreSQL (set DATABASE_URL): the embedded database runs inside one process, so it serves with one`,
    );
  }
  return workers;
}
