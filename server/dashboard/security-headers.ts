import type { Ctx } from '../app-context';
import type { EmbeddedSession } from '../http/connector';

/**
 * Every dashboard page: scripts and styles only from this server (plus the platform's own runtime
 * in embedded mode), no inline script; framing denied, except by the shop's own admin when embedded.
 */
export function setPageSecurityHeaders(ctx: Ctx, embedded: EmbeddedSession | null): void {
  const runtimeOrigin = embedded ? ` ${new URL(embedded.runtime_script).origin}` : '';
  const frameAncestors = embedded ? embedded.frame_ancestors.join(' ') : "'none'";
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'self'",
      `script-src 'self'${runtimeOrigin}`,
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src 'self'${runtimeOrigin}`,
      "form-action 'self'",
      "base-uri 'none'",
      "object-src 'none'",
      `frame-ancestors ${frameAncestors}`,
    ].join('; '),
  );
  if (!embedded) ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Sign-in links and embedded tokens travel in URLs: never hand them to another site.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
}
