/** The events a brand's webhook endpoints can subscribe to (docs/api/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = ['claim.created', 'conversion.created', 'conversion.refunded', 'reward.credited', 'reward.reversed', 'reward.issued'] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent by `webhook test` only, to the one endpoint tested: nobody subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test';
