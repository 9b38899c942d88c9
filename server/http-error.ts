/** An HTTP-level refusal (bad JSON, missing auth headers, body too large): status + message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
