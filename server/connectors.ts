import { medusaConnector } from '../connectors/medusa';
import { shopifyConnector } from '../connectors/shopify';
import type { Connector, ConnectorDeps, ConnectorParts, Worker } from './http';

/** Every platform connector: the one list the app, the server process and the CLI read. */
export const CONNECTORS: readonly Connector[] = [medusaConnector, shopifyConnector];

/** Reads every connector's settings from the environment, once per process; a bad value throws, naming the connector. */
export function configureConnectors(env: NodeJS.ProcessEnv = process.env, connectors = CONNECTORS): ConnectorParts[] {
  return connectors.map((connector) => {
    try {
      return connector.configure(env);
    } catch (error) {
      throw new Error(`${connector.name} connector: ${(error as Error).message}`);
    }
  });
}

/** Starts every connector's workers; stopping the result stops them all. */
export function startConnectorWorkers(parts: readonly ConnectorParts[], deps: ConnectorDeps): Worker {
  const workers = parts.flatMap((part) => part.startWorkers?.(deps) ?? []);
  return {
    async stop() {
      await Promise.all(workers.map((worker) => worker.stop()));
    },
  };
}
