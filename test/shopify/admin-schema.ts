import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type GraphQLSchema, type IntrospectionQuery, buildClientSchema, parse, validate } from 'graphql';
import { RUN_ARTIFACTS, runArtifact, runArtifactState } from '../helpers/run-artifacts';
import { adminSchemaSubset } from './admin-schema-subset';

/**
 * Shopify's Admin GraphQL schema, 2026-10, as the npm package @shopify/dev-mcp ships it (an
 * introspection result that also says which access scope and which protected customer data each
 * type and field needs), kept in the repository (dev-mcp 1.16.0) and refreshed by hand with
 * scripts/refresh-admin-schema.sh: the package itself is not a dependency (docs/development/decisions.md).
 */
const SCHEMA_FILE = path.join(__dirname, '../fixtures/shopify/admin-schema/admin_2026-10.json.gz');

interface Access {
  /** Scopes of which one must be granted; empty when none is named. */
  scopes: string[];
  /** Protected customer data needed (email, name, phone, address); null when none. */
  protectedContent: string | null;
}

export interface AdminSchema {
  schema: GraphQLSchema;
  /** Only the part the connector's documents use (firstAdminSchema). */
  subset: boolean;
  typeAccess(typeName: string): Access;
  fieldAccess(typeName: string, fieldName: string): Access;
}

let loaded: AdminSchema | null = null;

function scopesOf(requiredAccess: string | null | undefined): string[] {
  return [...(requiredAccess ?? '').matchAll(/`(\w+)` access scope/g)].map((match) => match[1]!);
}

/** The whole introspection result, parsed. */
export function adminIntrospection(): IntrospectionQuery {
  if (!fs.existsSync(SCHEMA_FILE)) throw new Error(`Shopify's Admin schema is missing (${SCHEMA_FILE}): run scripts/refresh-admin-schema.sh 2026-10`);
  return JSON.parse(gunzipSync(fs.readFileSync(SCHEMA_FILE)).toString('utf8')).data;
}

function fromIntrospection(introspection: IntrospectionQuery, subset = false): AdminSchema {
  const types = new Map<string, any>(introspection.__schema.types.map((type: any) => [type.name, type]));
  return {
    schema: buildClientSchema(introspection),
    subset,
    typeAccess: (typeName) => ({ scopes: scopesOf(types.get(typeName)?.requiredAccess), protectedContent: null }),
    fieldAccess: (typeName, fieldName) => {
      const field = types.get(typeName)?.fields?.find((candidate: any) => candidate.name === fieldName);
      return { scopes: scopesOf(field?.requiredAccess), protectedContent: field?.isProtected ? field.protectedContent : null };
    },
  };
}

/** The whole schema: half a second to build, once per test file that needs it. */
export function adminSchema(): AdminSchema {
  loaded ??= fromIntrospection(adminIntrospection());
  return loaded;
}

let subset: AdminSchema | null | undefined;

/** globalSetup's child (write-admin-schema-subset.ts): the part of the schema the connector's documents use, for the fake Shopify. */
export function writeAdminSchemaSubset(runFolder: string, documents: string[]): void {
  const introspection = adminIntrospection();
  const part = adminSchemaSubset(adminSchema().schema, introspection, documents);
  const partSchema = buildClientSchema(part);
  for (const text of documents) {
    const errors = validate(partSchema, parse(text));
    if (errors.length > 0) throw new Error(`the schema subset refuses a document the whole schema accepts: ${errors[0]!.message}\n${text}`);
  }
  const file = path.join(runFolder, RUN_ARTIFACTS.adminSchemaSubset);
  fs.writeFileSync(`${file}.partial`, JSON.stringify(part));
  fs.renameSync(`${file}.partial`, file);
}

/**
 * Waits until globalSetup's child has written the subset, or failed to: the workers start while it
 * is being made, and a fake Shopify that found none yet would build the whole schema (half a
 * second of CPU) for its suite. On a failure or a timeout the whole schema serves.
 */
export async function adminSchemaSubsetSettled(timeoutMs = 60_000): Promise<void> {
  await runArtifact(RUN_ARTIFACTS.adminSchemaSubset, 'the Admin schema subset', timeoutMs).catch(() => undefined);
}

/**
 * What the fake Shopify checks a document against first: the subset globalSetup wrote (tens of
 * milliseconds to build), else the whole schema. The subset refuses only what it lacks, so a
 * refusal or a failed execution is tried again on the whole schema (fake-shopify.ts).
 */
export function firstAdminSchema(): AdminSchema {
  if (subset === undefined) {
    const state = runArtifactState(RUN_ARTIFACTS.adminSchemaSubset);
    if (state.made) subset = fromIntrospection(JSON.parse(fs.readFileSync(state.path, 'utf8')), true);
    else if (state.failure !== null) subset = null;
    else return adminSchema(); // not written yet: the subset is read once it is
  }
  return subset ?? adminSchema();
}
