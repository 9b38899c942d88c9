import type { CliOutput } from './run-cli';

/** Writes a command's answer to this process's stdout and stderr; returns its exit code. */
export function printOutput(output: CliOutput): number {
  process.stdout.write(output.stdout);
  process.stderr.write(output.stderr);
  return output.code;
}
