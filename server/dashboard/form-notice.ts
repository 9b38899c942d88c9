import type { Ctx } from '../app-context';

/**
 * What the last form did, as the page after its redirect reads it: `?done=` carries the id of one
 * of the page's own messages, never text (a link could otherwise put anyone's words in the trusted
 * status line). Anything else is no notice at all.
 */
export function doneOf<Id extends string>(ctx: Ctx, ids: readonly Id[]): Id | null {
  const done = ctx.query.done;
  return typeof done === 'string' && (ids as readonly string[]).includes(done) ? (done as Id) : null;
}

/** A whole number the form's redirect carried beside its `done` (a count, an id), or null. */
export function countOf(ctx: Ctx, name: string): number | null {
  const value = ctx.query[name];
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : null;
}
