/** Domain errors: use cases throw these; server/ maps them to HTTP status codes in one place. */
export class DomainError extends Error {
  constructor(
    message: string,
    /** Extra top-level fields for the error body (e.g. the existing claim_id of a duplicate). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFound extends DomainError {}
export class Conflict extends DomainError {}
export class Invalid extends DomainError {}
export class Forbidden extends DomainError {}
export class Unauthorized extends DomainError {}
