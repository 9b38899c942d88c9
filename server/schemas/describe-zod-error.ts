import type { ZodError } from 'zod';

/** The first problem of a request body, as a sentence that names the field. */
export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request body';
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
  if (issue.code === 'invalid_type') {
    if (/received undefined/.test(issue.message)) return `${field} is required`;
    const received = /received (\w+)/.exec(issue.message)?.[1];
    return `${field} must be ${article(issue.expected)}${received ? `, not ${article(received)}` : ''}`;
  }
  if (issue.code === 'custom') return issue.message;
  return `${field}: ${issue.message}`;
}

function article(type: string): string {
  if (type === 'undefined' || type === 'null') return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
