import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type GraphQLSchema, buildClientSchema } from 'graphql';

/**
 * Shopify's Admin GraphQL schema, 2026-10, as the npm package @shopify/dev-mcp ships it (an
 * introspection result that also says which access scope and which protected customer data each
 * type and field needs). Missing package → the tests fail loudly: `npm install`.
 */
const SCHEMA_FILE = path.join(__dirname, '../../node_modules/@shopify/dev-mcp/dist/data/admin_2026-10.json.gz');

interface Access {
  /** Scopes of which one must be granted; empty when none is named. */
  scopes: string[];
  /** Protected customer data needed (email, name, phone, address); null when none. */
  protectedContent: string | null;
}

export interface AdminSchema {
  schema: GraphQLSchema;
  typeAccess(typeName: string): Access;
  fieldAccess(typeName: string, fieldName: string): Access;
}

let loaded: AdminSchema | null = null;

function scopesOf(requiredAccess: string | null | undefined): string[] {
  return [...(requiredAccess ?? '').matchAll(/`(\w+)` access scope/g)].map((match) => match[1]!);
}

export function adminSchema(): AdminSchema {
  if (loaded) return loaded;
  if (!fs.existsSync(SCHEMA_FILE)) throw new Error(`Shopify's Admin schema is missing (${SCHEMA_FILE}): run npm install`);
  const introspection = JSON.parse(gunzipSync(fs.readFileSync(SCHEMA_FILE)).toString('utf8')).data;
  const types = new Map<string, any>(introspection.__schema.types.map((type: any) => [type.name, type]));
  loaded = {
    schema: buildClientSchema(introspection),
    typeAccess: (typeName) => ({ scopes: scopesOf(types.get(typeName)?.requiredAccess), protectedContent: null }),
    fieldAccess: (typeName, fieldName) => {
      const field = types.get(typeName)?.fields?.find((candidate: any) => candidate.name === fieldName);
      return { scopes: scopesOf(field?.requiredAccess), protectedContent: field?.isProtected ? field.protectedContent : null };
    },
  };
  return loaded;
}
