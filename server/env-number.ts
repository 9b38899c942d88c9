import { z } from 'zod';

/** A number read from the environment: unset or empty means `fallback`; a value failing `check` names the variable and what it `must` be. */
export function envNumber(name: string, fallback: number, check: (value: number) => boolean, must: string) {
  return z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (!raw) return fallback;
      const value = Number(raw);
      if (Number.isFinite(value) && check(value)) return value;
      ctx.addIssue({ code: 'custom', message: `${name} must be ${must}, got "${raw}"` });
      return z.NEVER;
    });
}

/** A whole positive number read from the environment; unset or empty means the default. */
export function wholeNumber(name: string, fallback: number) {
  return envNumber(name, fallback, (value) => Number.isInteger(value) && value > 0, 'a positive whole number');
}

/** Settings read from the environment with their zod schema; a bad value throws, naming every variable that is wrong. */
export function parseEnvSettings<T>(schema: z.ZodType<T>, env: NodeJS.ProcessEnv): T {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}
