import { ZodError } from 'zod';
import { getBrand } from '../../core/brands/brand';
import { inTransaction } from '../../core/db/transaction';
import { listWebhookDeliveries, replayWebhookDelivery } from '../../core/webhooks/deliveries';
import { createWebhookEndpoint, enableWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint } from '../../core/webhooks/endpoints';
import { describeZodError } from '../schemas/describe-zod-error';
import { parseEventList } from '../schemas/webhook-endpoint-request';
import { testWebhookEndpoint } from '../webhooks/deliver-webhooks';
import { deliveryDepsOf, endpointOptionsOf } from '../webhooks/webhook-deps';
import { brandFlag, numberFlag, optionalFlag, requiredFlag } from './args';
import { CliError } from './cli-error';
import { type Command, flagsFirst } from './command';
import { CLI_OPERATOR } from './user-commands';

function eventsFlag(flags: Parameters<Command['run']>[0]) {
  const list = optionalFlag(flags, 'events');
  if (list === undefined) return undefined;
  try {
    return parseEventList(list);
  } catch (error) {
    if (error instanceof ZodError) throw new CliError(`--${describeZodError(error)}`);
    throw error;
  }
}

function deliveryFlag(flags: Parameters<Command['run']>[0]): number {
  const id = numberFlag(flags, 'delivery', { integer: true });
  if (id === undefined) throw new CliError('--delivery is required');
  return id;
}

const brandAndEndpoint = (flags: Parameters<Command['run']>[0]) => ({ brandId: brandFlag(flags), endpointId: requiredFlag(flags, 'endpoint') });

/** `referrals webhook …`: a brand's outbound webhook endpoints and their delivery log (docs/api/webhooks.md). */
export const webhookCommands: Record<string, Command> = {
  'webhook add': flagsFirst(
    'webhook add --brand ID --url URL [--events claim.created,conversion.created,...] [--description D] [--json]',
    (flags) => ({
      brandId: brandFlag(flags),
      endpoint: { url: requiredFlag(flags, 'url'), events: eventsFlag(flags), description: optionalFlag(flags, 'description') ?? null },
    }),
    async ({ brandId, endpoint: input }, { db, config }) => {
      await getBrand(db, brandId);
      const endpoint = await inTransaction(db, (trx) => createWebhookEndpoint(trx, brandId, input, endpointOptionsOf(config), CLI_OPERATOR.name));
      const { secret, ...shown } = endpoint;
      return { endpoint_id: endpoint.id, secret, note: 'the signing secret is shown only this once', endpoint: shown };
    },
  ),
  'webhook list': flagsFirst('webhook list --brand ID [--json]', brandFlag, async (brandId, { db }) => ({ endpoints: await listWebhookEndpoints(db, brandId) })),
  'webhook remove': flagsFirst('webhook remove --brand ID --endpoint ENDPOINT_ID [--json]', brandAndEndpoint, ({ brandId, endpointId }, { db }) =>
    inTransaction(db, (trx) => removeWebhookEndpoint(trx, brandId, endpointId, CLI_OPERATOR.name)),
  ),
  'webhook enable': flagsFirst('webhook enable --brand ID --endpoint ENDPOINT_ID [--json]', brandAndEndpoint, async ({ brandId, endpointId }, { db }) => ({
    endpoint: await inTransaction(db, (trx) => enableWebhookEndpoint(trx, brandId, endpointId, CLI_OPERATOR.name)),
  })),
  'webhook test': flagsFirst('webhook test --brand ID --endpoint ENDPOINT_ID [--json]', brandAndEndpoint, async ({ brandId, endpointId }, { db, config }) => {
    const delivery = await testWebhookEndpoint(deliveryDepsOf({ db, config }), brandId, endpointId, CLI_OPERATOR.name);
    return { delivered: delivery.status === 'delivered', delivery };
  }),
  'webhook replay': flagsFirst(
    'webhook replay --brand ID --delivery DELIVERY_ID [--json]',
    (flags) => ({ brandId: brandFlag(flags), deliveryId: deliveryFlag(flags) }),
    async ({ brandId, deliveryId }, { db }) => ({ delivery: await inTransaction(db, (trx) => replayWebhookDelivery(trx, brandId, deliveryId, CLI_OPERATOR.name)) }),
  ),
  'webhook deliveries': flagsFirst(
    'webhook deliveries --brand ID [--endpoint ENDPOINT_ID] [--json]',
    (flags) => ({ brandId: brandFlag(flags), endpointId: optionalFlag(flags, 'endpoint') }),
    async ({ brandId, endpointId }, { db }) => ({ deliveries: await listWebhookDeliveries(db, brandId, { endpointId }) }),
  ),
};
