import type { ZodError } from 'zod';

type Issue = ZodError['issues'][number];
type Path = ReadonlyArray<PropertyKey>;

/** The first problem of a request body, as a sentence that names the field. */
export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  return issue ? describeIssue(issue, issue.path) : 'invalid request body';
}

function describeIssue(issue: Issue, path: Path): string {
  const field = path.length > 0 ? path.map(String).join('.') : 'body';
  if (issue.code === 'invalid_union') {
    // The branch whose type matched knows what is wrong with the value (a string too long, ...).
    const matched = issue.errors.find((branch) => branch[0] !== undefined && branch[0].code !== 'invalid_type')?.[0];
    if (matched) return describeIssue(matched, [...path, ...matched.path]);
    const received = receivedOf(issue.errors[0]?.[0]);
    if (received === ', not undefined') return `${field} is required`;
    const expected = issue.errors.flatMap((branch) => (branch[0]?.code === 'invalid_type' ? [article(branch[0].expected)] : []));
    return `${field} must be ${expected.join(' or ')}${received}`;
  }
  if (issue.code === 'invalid_type') {
    if (!/^Invalid input/.test(issue.message)) return `${field}: ${issue.message}`;
    if (/received undefined/.test(issue.message)) return `${field} is required`;
    if (/received (Infinity|NaN)/.test(issue.message)) return `${field} must be a finite number`;
    return `${field} must be ${article(issue.expected)}${receivedOf(issue)}`;
  }
  // A refinement's message either is a whole sentence naming its field, or says what the field must be.
  const last = path[path.length - 1];
  if (issue.code === 'custom' && typeof last === 'string' && issue.message.includes(last)) return issue.message;
  return `${field}: ${issue.message}`;
}

function receivedOf(issue: Issue | undefined): string {
  const received = issue ? /received (\w+)/.exec(issue.message)?.[1] : undefined;
  return received ? `, not ${article(received)}` : '';
}

function article(type: string): string {
  if (type === 'undefined' || type === 'null') return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
