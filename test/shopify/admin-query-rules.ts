import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  GraphQLObjectType,
  type SelectionSetNode,
  Kind,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isLeafType,
  valueFromASTUntyped,
} from 'graphql';
import type { AdminSchema } from './admin-schema';

/** Shopify refuses a single query whose requested cost is above this. */
export const MAX_QUERY_COST = 1000;

export interface Grant {
  scopes: string[];
  /** Protected customer data fields approved (level 2): email, name, phone, address. */
  protectedContent: string[];
}

export interface QueryRuling {
  cost: number;
  /** Fields the grant does not cover, as Shopify names them in an ACCESS_DENIED error. */
  denied: Array<{ path: string; requiredAccess: string }>;
}

/**
 * Shopify's requested-cost rules, written from its documentation (not from the app's code):
 * a scalar or enum costs 0, an object 1, a connection 2 + first/last × the cost of one node,
 * a list taking first/last that many times its object, a mutation 10. Also which selected
 * fields the granted scopes and protected customer data do not cover.
 */
export function ruleOn(admin: AdminSchema, document: DocumentNode, variables: Record<string, unknown>, grant: Grant): QueryRuling {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const denied: QueryRuling['denied'] = [];

  const argument = (field: FieldNode, name: string): number | null => {
    const node = field.arguments?.find((arg) => arg.name.value === name);
    const value = node ? valueFromASTUntyped(node.value, variables) : null;
    return typeof value === 'number' ? value : null;
  };

  // Shopify: a write_ scope grants its read_ scope too.
  const granted = new Set([...grant.scopes, ...grant.scopes.filter((scope) => scope.startsWith('write_')).map((scope) => `read_${scope.slice(6)}`)]);
  const checkAccess = (parent: string, field: string, returns: string, path: string) => {
    for (const access of [admin.fieldAccess(parent, field), admin.typeAccess(returns)]) {
      if (access.scopes.length > 0 && !access.scopes.some((scope) => granted.has(scope))) {
        denied.push({ path, requiredAccess: access.scopes.map((scope) => `\`${scope}\` access scope`).join(' or ') });
      }
      if (access.protectedContent && !grant.protectedContent.includes(access.protectedContent)) {
        denied.push({ path, requiredAccess: `protected customer data: ${access.protectedContent}` });
      }
    }
  };

  const selectionCost = (parent: GraphQLCompositeType, selectionSet: SelectionSetNode | undefined, path: string, skip: string[] = []): number => {
    let cost = 0;
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? (admin.schema.getType(selection.typeCondition.name.value) as GraphQLCompositeType) : parent;
        cost += selectionCost(on, selection.selectionSet, path, skip);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)!;
        cost += selectionCost(admin.schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType, fragment.selectionSet, path, skip);
      } else if (!skip.includes(selection.name.value)) {
        cost += fieldCost(parent, selection, path);
      }
    }
    return cost;
  };

  const fieldCost = (parent: GraphQLCompositeType, field: FieldNode, path: string): number => {
    const name = field.name.value;
    if (name.startsWith('__') || !(parent instanceof GraphQLObjectType || isInterfaceType(parent))) return 0;
    const definition = parent.getFields()[name];
    if (!definition) return 0; // validation reports it
    const type = getNamedType(definition.type);
    const here = `${path}.${name}`;
    checkAccess(parent.name, name, type.name, here);
    if (isLeafType(type) || !isCompositeType(type)) return 0;
    const count = argument(field, 'first') ?? argument(field, 'last');
    if (type.name.endsWith('Connection')) return 2 + (count ?? 1) * selectionCost(type, field.selectionSet, here, ['pageInfo']);
    return (count ?? 1) * (1 + selectionCost(type, field.selectionSet, here));
  };

  let cost = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = definition.operation === 'mutation' ? admin.schema.getMutationType()! : admin.schema.getQueryType()!;
    cost += selectionCost(root, definition.selectionSet, root.name);
    if (definition.operation === 'mutation') cost += 10 * definition.selectionSet.selections.length;
  }
  return { cost, denied };
}
