/** A bad command line: printed as one clear message, exit code 2. */
export class CliError extends Error {}
