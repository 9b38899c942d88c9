/**
 * The one part of server/ a connector may import: the HTTP helpers its routes use and the
 * contract it fills in (routes, workers, CLI commands). Everything else of server/ is private.
 */
export type { AppContext, AppState, Ctx, Middleware } from '../app-context';
export { HttpError } from '../http-error';
export { parseJsonObject, readRawBody } from '../middleware/json-body';
export { UUID_PATTERN, authenticateApiKey } from '../middleware/authenticate-api-key';
export { brandSignedBy } from '../middleware/brand-signed-by';
export type { ConnectionSection, ConnectionTable, Connector, ConnectorDeps, ConnectorParts, DashboardParts, EmbeddedSession, Worker } from './connector';
export { type CliEnv, type Command, flagsFirst } from '../cli/command';
export { type Flags, brandFlag, choiceFlag, numberFlag, optionalFlag, requiredFlag } from '../cli/args';
export { CliError } from '../cli/cli-error';
export { CLI_OPERATOR } from '../cli/user-commands';
export { parseEnvSettings } from '../env-number';
// One address rule, and one rule for a name typed with it, for every place that takes them (issue 39).
export { mailbox } from '../schemas/fields';
export { typedName } from '../schemas/advocate-request';
