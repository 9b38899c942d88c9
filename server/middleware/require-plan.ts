import type { Plan } from '../../core/brands/brand';
import type { Middleware } from '../app-context';
import { HttpError } from '../http-error';

/** Plan gating: claim and visit need Premier; a lower plan gets 403 naming the plan needed. */
export function requirePlan(...allowed: Plan[]): Middleware {
  return async (ctx, next) => {
    const plan = ctx.state.brand?.plan;
    if (!plan || !allowed.includes(plan)) {
      const needed = allowed.map((name) => name[0]!.toUpperCase() + name.slice(1)).join(' or ');
      throw new HttpError(403, `this endpoint requires the ${needed} plan (current plan: ${plan ?? 'none'})`, {}, 'plan_required');
    }
    return next();
  };
}
