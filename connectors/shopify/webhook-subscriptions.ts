import type { AdminApi } from './admin-api';
import { TOPIC_HANDLERS } from './topics/topic-handlers';

/** Privacy topics: set in the app's configuration only (shopify.app.toml), never through the API. */
export const COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;

/** Every topic we handle that a subscription can name (the toml's `topics`, the API's subscriptions). */
export function subscribableTopics(): string[] {
  return Object.keys(TOPIC_HANDLERS).filter((topic) => !(COMPLIANCE_TOPICS as readonly string[]).includes(topic));
}

/** orders/paid → ORDERS_PAID, the GraphQL WebhookSubscriptionTopic. */
export function graphqlTopic(topic: string): string {
  return topic.replace(/\//g, '_').toUpperCase();
}

export const EXISTING_SUBSCRIPTIONS = `#graphql
  query ExistingWebhookSubscriptions {
    webhookSubscriptions(first: 100) {
      nodes { id topic uri }
    }
  }`;

export const CREATE_SUBSCRIPTION = `#graphql
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

/** One topic's state after subscribing: its subscription, or Shopify's reason for refusing it. */
export interface TopicSubscription {
  topic: string;
  status: 'subscribed' | 'refused';
  subscription_id: string | null;
  error: string | null;
}

export interface SubscriptionReport {
  uri: string;
  created: string[];
  existing: string[];
  refused: Array<{ topic: string; error: string }>;
  topics: TopicSubscription[];
}

/**
 * Shop-specific subscriptions (for apps whose configuration we do not deploy) to every topic we
 * handle at our webhook URL. Each topic is asked for on its own: a refusal of one (ORDERS_PAID
 * without protected customer data access) is reported and the others still subscribe. Topics
 * already subscribed there are left alone, so this also re-creates any that Shopify deleted.
 */
export async function subscribeWebhooks(api: AdminApi, uri: string): Promise<SubscriptionReport> {
  const { webhookSubscriptions } = await api.request<ExistingSubscriptions>(EXISTING_SUBSCRIPTIONS);
  const existing = new Map(webhookSubscriptions.nodes.filter((node) => node.uri === uri).map((node) => [node.topic, node.id]));
  const report: SubscriptionReport = { uri, created: [], existing: [], refused: [], topics: [] };
  for (const topic of subscribableTopics().map(graphqlTopic)) {
    const existingId = existing.get(topic);
    if (existingId) {
      report.existing.push(topic);
      report.topics.push({ topic, status: 'subscribed', subscription_id: existingId, error: null });
      continue;
    }
    const outcome = await createSubscription(api, topic, uri);
    report.topics.push(outcome);
    if (outcome.status === 'subscribed') report.created.push(topic);
    else report.refused.push({ topic, error: outcome.error! });
  }
  return report;
}

async function createSubscription(api: AdminApi, topic: string, uri: string): Promise<TopicSubscription> {
  try {
    const { webhookSubscriptionCreate: result } = await api.request<CreatedSubscription>(CREATE_SUBSCRIPTION, { topic, uri });
    if (result.userErrors.length > 0 || !result.webhookSubscription) {
      return { topic, status: 'refused', subscription_id: null, error: result.userErrors.map((error) => error.message).join('; ') || 'no subscription returned' };
    }
    return { topic, status: 'subscribed', subscription_id: result.webhookSubscription.id, error: null };
  } catch (error) {
    // A failed call is recorded like a refusal: the next reconcile asks again.
    return { topic, status: 'refused', subscription_id: null, error: (error as Error).message };
  }
}
