/** Emails are matched trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Referral codes are matched case-insensitively. */
export function normalizeCode(code: string): string {
  return code.trim().toLowerCase();
}
