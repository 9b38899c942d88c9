import { type GraphQLSchema, type IntrospectionQuery, type IntrospectionType, type IntrospectionTypeRef, TypeInfo, parse, visit, visitWithTypeInfo } from 'graphql';

interface Field {
  name: string;
  type: IntrospectionTypeRef;
  args: Array<{ type: IntrospectionTypeRef }>;
}
type AnyType = IntrospectionType & { fields?: Field[] | null; inputFields?: Field[] | null; interfaces?: Array<{ name: string }> | null; possibleTypes?: Array<{ name: string }> | null };

const COMPOSITE = new Set(['OBJECT', 'INTERFACE', 'UNION']);

function namedOf(ref: IntrospectionTypeRef): string {
  let type = ref as { name?: string; ofType?: IntrospectionTypeRef };
  while (type.ofType) type = type.ofType as typeof type;
  return type.name!;
}

/**
 * The part of Shopify's Admin schema that `documents` use, as an introspection result: the root
 * types with the fields the documents select, and so on down (each kept field with all of its
 * arguments and their input types, whole), the interfaces on the way (with the fields they select
 * kept on every kept implementation), and every directive. Building it takes milliseconds where
 * the whole schema takes half a second per test file. It lacks fields, so it can refuse what the
 * whole schema accepts, never the reverse (a field keeps every argument): the fake Shopify checks a
 * refusal against the whole schema (test/shopify/admin-schema.ts).
 */
export function adminSchemaSubset(full: GraphQLSchema, introspection: IntrospectionQuery, documents: string[]): IntrospectionQuery {
  const types = new Map<string, AnyType>(introspection.__schema.types.map((type) => [type.name, type as AnyType]));
  const selected = new Map<string, Set<string>>(); // composite type → its fields kept
  const whole = new Set<string>(); // scalars, enums, input objects: kept entire
  let changed = true;

  const keepWhole = (name: string): void => {
    if (whole.has(name) || !types.has(name)) return;
    whole.add(name);
    for (const field of types.get(name)!.inputFields ?? []) keepWhole(namedOf(field.type));
  };
  const keepType = (name: string): void => {
    if (!COMPOSITE.has(types.get(name)?.kind ?? '')) return keepWhole(name);
    if (selected.has(name)) return;
    selected.set(name, new Set());
    changed = true;
  };
  const keepField = (typeName: string, fieldName: string): void => {
    const fields = selected.get(typeName) ?? new Set<string>();
    selected.set(typeName, fields);
    const field = types.get(typeName)?.fields?.find((candidate) => candidate.name === fieldName);
    if (!field || fields.has(fieldName)) return;
    fields.add(fieldName);
    changed = true;
    for (const arg of field.args) keepWhole(namedOf(arg.type));
    keepType(namedOf(field.type));
  };

  for (const text of documents) {
    const typeInfo = new TypeInfo(full);
    visit(
      parse(text),
      visitWithTypeInfo(typeInfo, {
        Field(node) {
          const parent = typeInfo.getParentType();
          if (parent && !node.name.value.startsWith('__')) keepField(parent.name, node.name.value);
        },
        InlineFragment(node) {
          if (node.typeCondition) keepType(node.typeCondition.name.value);
        },
        FragmentDefinition(node) {
          keepType(node.typeCondition.name.value);
        },
        VariableDefinition(node) {
          let type = node.type as { type?: unknown; name?: { value: string } };
          while (type.type) type = type.type as typeof type;
          keepWhole(type.name!.value);
        },
      }),
    );
  }
  for (const directive of introspection.__schema.directives) for (const arg of directive.args) keepWhole(namedOf(arg.type));
  keepType(introspection.__schema.queryType.name);

  // Until nothing changes: a kept type still implements its kept interfaces, has a field, and a union a member.
  while (changed) {
    changed = false;
    for (const [name, fields] of [...selected]) {
      const type = types.get(name)!;
      for (const iface of type.interfaces ?? []) for (const field of selected.get(iface.name) ?? []) keepField(name, field);
      if (fields.size === 0 && type.fields?.length) {
        const plain = type.fields.find((field) => !COMPOSITE.has(types.get(namedOf(field.type))?.kind ?? '') && field.args.length === 0) ?? type.fields[0]!;
        keepField(name, plain.name);
      }
      if (type.kind === 'UNION' && !(type.possibleTypes ?? []).some((member) => selected.has(member.name))) keepType(type.possibleTypes![0]!.name);
    }
  }

  const kept = (name: string) => selected.has(name) || whole.has(name) || name.startsWith('__');
  const subsetTypes = [...types.values()]
    .filter((type) => kept(type.name))
    .map((type) => {
      const fields = selected.get(type.name);
      if (!fields) return type;
      return {
        ...type,
        fields: type.fields?.filter((field) => fields.has(field.name)) ?? type.fields,
        interfaces: type.interfaces?.filter((iface) => kept(iface.name)) ?? type.interfaces,
        possibleTypes: type.possibleTypes?.filter((member) => kept(member.name)) ?? type.possibleTypes,
      };
    });

  const { mutationType } = introspection.__schema;
  return {
    __schema: {
      ...introspection.__schema,
      mutationType: mutationType && selected.has(mutationType.name) ? mutationType : null,
      subscriptionType: null,
      types: subsetTypes as IntrospectionType[],
    },
  } as IntrospectionQuery;
}
