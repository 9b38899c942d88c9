import { DomainError } from '../../core/errors';
import { configureConnectors } from '../connectors';
import type { ConnectorParts } from '../http/connector';
import { type Flags, splitArgs } from './args';
import { CliError } from './cli-error';
import { type CliEnv, type Command, TextOutput } from './command';
import { coreCommands } from './core-commands';
import { mailCommands } from './mail-commands';
import { rewardCommands } from './reward-commands';
import { userCommands } from './user-commands';
import { webhookCommands } from './webhook-commands';

/** Every command of `referrals`, by its words: the core's, then each connector's. */
export function commandsOf(connectors: readonly ConnectorParts[]): Record<string, Command> {
  return Object.assign({}, coreCommands, rewardCommands, webhookCommands, mailCommands, userCommands, ...connectors.map((connector) => connector.cliCommands ?? {}));
}

export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

function usage(commands: Record<string, Command>): string {
  return ['usage: referrals <command> [--json]', '', ...Object.values(commands).map((command) => `  referrals ${command.usage}`)].join('\n');
}

/** Human output: `key: value` lines; nested lists as indented JSON. */
function humanize(result: unknown): string {
  if (result === null || typeof result !== 'object') return String(result);
  return Object.entries(result as Record<string, unknown>)
    .map(([key, value]) => `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : String(value)}`)
    .join('\n');
}

/** The command a line names, with its flags. */
export interface CommandToRun {
  command: Command;
  flags: Flags;
}

/** A line resolved: the whole answer, or the command to run. */
export type ResolvedLine = { answer: CliOutput } | CommandToRun;

/**
 * The command a line names, or the whole answer when it names none: no command, --help, an
 * unknown one, connector settings that do not parse, or flags the command's check refuses. Needs no
 * database, so the CLI answers these before it opens (or creates) one.
 */
export function resolveLine(argv: string[], connectors?: readonly ConnectorParts[]): ResolvedLine {
  let commands: Record<string, Command>;
  try {
    commands = commandsOf(connectors ?? configureConnectors());
  } catch (error) {
    return { answer: { code: 2, stdout: '', stderr: `error: ${(error as Error).message}\n` } };
  }
  const { words, flags } = splitArgs(argv);
  if (words.length === 0 || flags.help) {
    // Asked for (--help): the usage on stdout, exit 0. Not asked for (no command): on stderr, exit 2.
    return { answer: flags.help ? { code: 0, stdout: usage(commands) + '\n', stderr: '' } : { code: 2, stdout: '', stderr: usage(commands) + '\n' } };
  }
  const name = Object.keys(commands).find((candidate) => candidate === words.join(' '));
  if (!name) return { answer: { code: 2, stdout: '', stderr: `unknown command "${words.join(' ')}"\n\n${usage(commands)}\n` } };
  const command = commands[name]!;
  try {
    command.check?.(flags);
  } catch (error) {
    if (error instanceof CliError) return { answer: badFlag(command, error) };
    throw error;
  }
  return { command, flags };
}

/** A flag the command cannot use: the message and the command's usage, exit 2. */
function badFlag(command: Command, error: CliError): CliOutput {
  return { code: 2, stdout: '', stderr: `error: ${error.message}\nusage: referrals ${command.usage}\n` };
}

/** Runs one command line against a database; never throws, never exits the process. */
export async function runCli(argv: string[], env: CliEnv): Promise<CliOutput> {
  const resolved = resolveLine(argv, env.connectors);
  return 'answer' in resolved ? resolved.answer : runCommand(resolved, env);
}

/** Runs a resolved command (resolveLine); never throws. */
export async function runCommand({ command, flags }: CommandToRun, env: CliEnv): Promise<CliOutput> {
  try {
    const result = await command.run(flags, env);
    if (result instanceof TextOutput) return { code: 0, stdout: result.text, stderr: '' };
    const stdout = flags.json ? JSON.stringify(result) : humanize(result);
    return { code: 0, stdout: stdout + '\n', stderr: '' };
  } catch (error) {
    if (error instanceof CliError) return badFlag(command, error);
    if (error instanceof DomainError) return { code: 1, stdout: '', stderr: `error: ${error.message}\n` };
    return { code: 1, stdout: '', stderr: `error: ${(error as Error).message}\n` };
  }
}
