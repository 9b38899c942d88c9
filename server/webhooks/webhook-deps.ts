import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { DeliveryDeps } from './deliver-webhooks';
import { webhookSettingsOf } from './webhook-settings';

/** What createWebhookEndpoint needs from the config: the key that encrypts secrets, the address policy. */
export function endpointOptionsOf(config: Config): { encryptionSecret: string; allowPrivate: boolean } {
  return { encryptionSecret: config.keyEncryptionSecret, allowPrivate: webhookSettingsOf(config).allowPrivate };
}

/** What a test send (and a delivery pass) needs: the REST API, the CLI and the dashboard build it here. */
export function deliveryDepsOf(deps: { db: Knex; config: Config; logger?: Logger }): DeliveryDeps {
  return { db: deps.db, encryptionSecret: deps.config.keyEncryptionSecret, settings: webhookSettingsOf(deps.config), logger: deps.logger };
}
