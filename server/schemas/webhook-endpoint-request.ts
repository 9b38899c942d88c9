import { z } from 'zod';
import { NotFound } from '../../core/errors';
import type { NewWebhookEndpoint } from '../../core/webhooks/endpoints';
import { WEBHOOK_EVENT_TYPES } from '../../core/webhooks/event-types';
import { MAX_STRING, text } from './fields';

const eventType = z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });

/** POST /api/v1/webhook-endpoints. The URL's scheme and address are checked by core (checkWebhookUrl). */
export const webhookEndpointRequestSchema = z.object({
  url: z.string().trim().min(1, { error: 'must not be empty' }).max(MAX_STRING, { error: `must be at most ${MAX_STRING} characters` }),
  /** Omitted: every event type, including those added later. */
  events: z.array(eventType).min(1, { error: 'must name at least one event type (omit it for all)' }).max(WEBHOOK_EVENT_TYPES.length * 2).optional(),
  description: text().optional(),
});

export function parseWebhookEndpointRequest(body: Record<string, unknown>): NewWebhookEndpoint {
  return webhookEndpointRequestSchema.parse(body);
}

/** GET /api/v1/webhook-endpoints/{id}/deliveries query. */
export const deliveryQuerySchema = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  limit: z.coerce.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).min(1).max(500).optional(),
});

/** The events an endpoint subscribes to, from the CLI's comma-separated `--events a,b`. */
export function parseEventList(list: string): NewWebhookEndpoint['events'] {
  return z.object({ events: webhookEndpointRequestSchema.shape.events }).parse({ events: list.split(',').map((type) => type.trim()).filter(Boolean) }).events;
}

/** A delivery id in a path: a positive integer, else no such delivery. */
export function parseDeliveryId(raw: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id <= 0) throw new NotFound(`webhook delivery ${raw} not found`);
  return id;
}
