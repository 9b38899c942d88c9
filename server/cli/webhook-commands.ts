import { ZodError } from 'zod';
import { getBrand } from '../../core/brands/brand';
import { listWebhookDeliveries, replayWebhookDelivery } from '../../core/webhooks/deliveries';
import { createWebhookEndpoint, enableWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint } from '../../core/webhooks/endpoints';
import { describeZodError } from '../schemas/describe-zod-error';
import { parseEventList } from '../schemas/webhook-endpoint-request';
import { testWebhookEndpoint } from '../webhooks/deliver-webhooks';
import { deliveryDepsOf, endpointOptionsOf } from '../webhooks/webhook-deps';
import { brandFlag, numberFlag, optionalFlag, requiredFlag } from './args';
import { CliError } from './cli-error';
import type { Command } from './command';

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

/** `referrals webhook …`: a brand's outbound webhook endpoints and their delivery log (docs/webhooks.md). */
export const webhookCommands: Record<string, Command> = {
  'webhook add': {
    usage: 'webhook add --brand ID --url URL [--events claim.created,conversion.created,...] [--description D] [--json]',
    async run(flags, { db, config }) {
      const brandId = brandFlag(flags);
      const url = requiredFlag(flags, 'url');
      const events = eventsFlag(flags);
      await getBrand(db, brandId);
      const endpoint = await createWebhookEndpoint(
        db,
        brandId,
        { url, events, description: optionalFlag(flags, 'description') ?? null },
        endpointOptionsOf(config),
      );
      const { secret, ...shown } = endpoint;
      return { endpoint_id: endpoint.id, secret, note: 'the signing secret is shown only this once', endpoint: shown };
    },
  },
  'webhook list': {
    usage: 'webhook list --brand ID [--json]',
    async run(flags, { db }) {
      return { endpoints: await listWebhookEndpoints(db, brandFlag(flags)) };
    },
  },
  'webhook remove': {
    usage: 'webhook remove --brand ID --endpoint ENDPOINT_ID [--json]',
    async run(flags, { db }) {
      return removeWebhookEndpoint(db, brandFlag(flags), requiredFlag(flags, 'endpoint'));
    },
  },
  'webhook enable': {
    usage: 'webhook enable --brand ID --endpoint ENDPOINT_ID [--json]',
    async run(flags, { db }) {
      return { endpoint: await enableWebhookEndpoint(db, brandFlag(flags), requiredFlag(flags, 'endpoint')) };
    },
  },
  'webhook test': {
    usage: 'webhook test --brand ID --endpoint ENDPOINT_ID [--json]',
    async run(flags, { db, config }) {
      const delivery = await testWebhookEndpoint(deliveryDepsOf({ db, config }), brandFlag(flags), requiredFlag(flags, 'endpoint'));
      return { delivered: delivery.status === 'delivered', delivery };
    },
  },
  'webhook replay': {
    usage: 'webhook replay --brand ID --delivery DELIVERY_ID [--json]',
    async run(flags, { db }) {
      return { delivery: await replayWebhookDelivery(db, brandFlag(flags), deliveryFlag(flags)) };
    },
  },
  'webhook deliveries': {
    usage: 'webhook deliveries --brand ID [--endpoint ENDPOINT_ID] [--json]',
    async run(flags, { db }) {
      return { deliveries: await listWebhookDeliveries(db, brandFlag(flags), { endpointId: optionalFlag(flags, 'endpoint') }) };
    },
  },
};
