/**
 * Domain errors: use cases throw these; server/ maps them to HTTP status codes in one place.
 * Each kind carries a stable machine code (the error body's `code`); a thrower may name a
 * narrower one. Authentication failures are not domain errors: the server refuses them itself.
 */
export class DomainError extends Error {
  /** The stable machine code of this kind of error, unless the thrower names a narrower one. */
  static readonly code: string = 'internal_error';
  readonly code: string;

  constructor(
    message: string,
    /** Extra top-level fields for the error body (e.g. the existing claim_id of a duplicate). */
    readonly details: Record<string, unknown> = {},
    code?: string,
  ) {
    super(message);
    this.name = new.target.name;
    this.code = code ?? (new.target as typeof DomainError).code;
  }
}

export class NotFound extends DomainError {
  static override readonly code: string = 'not_found';
}
export class Conflict extends DomainError {
  static override readonly code: string = 'conflict';
}
export class Invalid extends DomainError {
  static override readonly code: string = 'invalid_request';
}
/** Well-formed, but it cannot be done as asked (an order in another currency without a rate). */
export class Unprocessable extends DomainError {
  static override readonly code: string = 'unprocessable';
}
/** The brand may not do this (inactive brand, plan too low). */
export class Forbidden extends DomainError {
  static override readonly code: string = 'forbidden';
}
