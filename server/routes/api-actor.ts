import type { Ctx } from '../app-context';

/** Who changed something through the API, as the audit log and the records name them: the key, never the key itself. */
export const actorOf = (ctx: Ctx) => `api_key:${ctx.state.apiKeyId}`;
