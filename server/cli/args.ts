import { currencyCode } from '../../core/currency';
import { CliError } from './cli-error';

export type Flags = Record<string, string | boolean>;

/** `--name Acme --json` → { name: 'Acme', json: true }; positionals are the command words. */
export function splitArgs(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (inline !== undefined) flags[name] = inline;
    else if (argv[index + 1] !== undefined && !argv[index + 1]!.startsWith('--')) flags[name] = argv[(index += 1)]!;
    else flags[name] = true;
  }
  return { words, flags };
}

export function requiredFlag(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} is required`);
  return value.trim();
}

export function optionalFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} needs a value`);
  return value.trim();
}

export function choiceFlag<T extends string>(flags: Flags, name: string, choices: readonly T[]): T | undefined {
  const value = optionalFlag(flags, name);
  if (value === undefined) return undefined;
  if (!choices.includes(value as T)) throw new CliError(`--${name} must be one of ${choices.join(', ')} (got "${value}")`);
  return value as T;
}

export function numberFlag(flags: Flags, name: string, { integer = false } = {}): number | undefined {
  const value = optionalFlag(flags, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || (integer && !Number.isInteger(parsed))) {
    throw new CliError(`--${name} must be a non-negative ${integer ? 'integer' : 'number'} (got "${value}")`);
  }
  return parsed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function brandFlag(flags: Flags): string {
  const brandId = requiredFlag(flags, 'brand');
  if (!UUID.test(brandId)) throw new CliError(`--brand must be a brand ID (a UUID), got "${brandId}"`);
  return brandId.toLowerCase();
}

export function advocateFlag(flags: Flags): number {
  const advocateId = numberFlag(flags, 'advocate', { integer: true });
  if (advocateId === undefined) throw new CliError('--advocate is required');
  return advocateId;
}

/** --currency eur → "EUR" (ISO 4217); absent → undefined. */
export function currencyFlag(flags: Flags, name = 'currency'): string | undefined {
  const value = optionalFlag(flags, name);
  if (value === undefined) return undefined;
  const code = currencyCode(value);
  if (code === null) throw new CliError(`--${name} must be an ISO 4217 code such as USD, EUR or JPY (got "${value}")`);
  return code;
}
