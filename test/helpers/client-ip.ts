let counter = 0;

/** A client address no other test uses, so rate-limit counters never leak between tests. */
export function uniqueClientIp(): string {
  counter += 1;
  const random = Math.floor(Math.random() * 0xffff).toString(16);
  return `2001:db8:${(process.pid & 0xffff).toString(16)}:${random}::${counter.toString(16)}`;
}

/** Headers a TLS-terminating proxy adds for `ip` (honoured only with trustProxy: true). */
export function viaProxyFrom(ip: string): Record<string, string> {
  return { 'X-Forwarded-For': ip, 'X-Forwarded-Proto': 'https' };
}
