import type { AdminApi } from './admin-api';
import { SUBSCRIBED_TOPICS } from './shopify-config';

const EXISTING_SUBSCRIPTIONS = `#graphql
  query ExistingWebhookSubscriptions {
    webhookSubscriptions(first: 100) {
      nodes { id topic uri }
    }
  }`;

const CREATE_SUBSCRIPTION = `#graphql
  mutation CreateWebhookSubscription($topic: WebhookSubscriptionTopic!, $uri: String!) {
    webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri }) {
      webhookSubscription { id topic uri }
      userErrors { field message }
    }
  }`;

interface ExistingSubscriptions {
  webhookSubscriptions: { nodes: Array<{ id: string; topic: string; uri: string }> };
}

interface CreatedSubscription {
  webhookSubscriptionCreate: {
    webhookSubscription: { id: string; topic: string; uri: string } | null;
    userErrors: Array<{ field: string[] | null; message: string }>;
  };
}

export interface SubscriptionReport {
  uri: string;
  created: string[];
  existing: string[];
}

/**
 * Subscribes the shop to orders/paid, refunds/create and app/uninstalled at our webhook URL
 * through the GraphQL Admin API; topics already subscribed there are left alone (reinstalls).
 */
export async function subscribeWebhooks(api: AdminApi, uri: string): Promise<SubscriptionReport> {
  const { webhookSubscriptions } = await api.request<ExistingSubscriptions>(EXISTING_SUBSCRIPTIONS);
  const existing = new Set(webhookSubscriptions.nodes.filter((node) => node.uri === uri).map((node) => node.topic));
  const report: SubscriptionReport = { uri, created: [], existing: [] };
  for (const topic of SUBSCRIBED_TOPICS) {
    if (existing.has(topic)) {
      report.existing.push(topic);
      continue;
    }
    const { webhookSubscriptionCreate: result } = await api.request<CreatedSubscription>(CREATE_SUBSCRIPTION, { topic, uri });
    if (result.userErrors.length > 0) {
      throw new Error(`Shopify refused the ${topic} subscription: ${result.userErrors.map((error) => error.message).join('; ')}`);
    }
    report.created.push(topic);
  }
  return report;
}
