/**
 * src/limits.ts against the schema: the per-request bounds can only hold for fields the planner
 * knows, so every mutation and every field answering a connection must have a row in
 * `FIELD_LIMITS` (fail closed, like the role table), every row must name a field that exists, and
 * the input bounds must admit everything the schema's arguments accept.
 */
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { loadTypeDefs } from '../src/graphql/schema';
import {
  ALLOCATIONS_PER_REQUEST,
  BATCHED_OPERATIONS,
  DEFAULT_BODY_LIMIT,
  DOCUMENT,
  ERRORS,
  FIELD_LIMITS,
  INPUT,
  LISTED_ITEMS_PER_REQUEST,
  NODES_PER_LIST,
  PAGE_SIZE,
  SCANNED_VALUES_PER_REQUEST,
  TRANSACTION_GROUP_RERUNS,
  USERS_PER_BATCH,
  USERS_PER_REQUEST,
  VALUES_PER_ALLOCATION,
  RESERVATIONS_PER_REQUEST,
} from '../src/limits';

const schema = buildSchema(loadTypeDefs());

/** A connection (Relay): an object type with `edges` and `pageInfo`. */
function isConnection(type: unknown): boolean {
  const named = getNamedType(type as GraphQLInputType);
  if (!isObjectType(named)) return false;
  const fields = named.getFields();
  return 'edges' in fields && 'pageInfo' in fields;
}

/** Every `Type.field` of the schema that must have a row, and why. */
function fieldsNeedingLimits(checked: GraphQLSchema): Map<string, string> {
  const needed = new Map<string, string>();
  for (const field of Object.keys(checked.getMutationType()?.getFields() ?? {})) {
    needed.set(`Mutation.${field}`, 'a mutation may create users or allocate');
  }
  for (const type of Object.values(checked.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (isConnection(field.type)) {
        needed.set(`${type.name}.${field.name}`, 'it returns a connection');
      }
    }
  }
  return needed;
}

/** The problems of `FIELD_LIMITS` against a schema; empty when the table is complete and true. */
function fieldLimitProblems(checked: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const [field, why] of fieldsNeedingLimits(checked)) {
    const [type, name] = field.split('.');
    const limit = FIELD_LIMITS[type]?.[name];
    if (limit === undefined) {
      problems.push(`${field} has no row in FIELD_LIMITS (src/limits.ts), though ${why}`);
    } else if (why === 'it returns a connection' && !('lists' in limit)) {
      problems.push(`${field} returns a connection but its row is not { lists: 'page' }`);
    }
  }
  for (const [type, fields] of Object.entries(FIELD_LIMITS)) {
    for (const [name, limit] of Object.entries(fields)) {
      const objectType = checked.getType(type);
      const field = isObjectType(objectType) ? objectType.getFields()[name] : undefined;
      if (field === undefined) {
        problems.push(`FIELD_LIMITS has a row for ${type}.${name}, which the schema lacks`);
        continue;
      }
      if (('createsUsers' in limit || 'allocates' in limit) && type !== 'Mutation') {
        problems.push(`${type}.${name} creates or allocates but is not a mutation`);
      }
      const perItem =
        'createsUsers' in limit
          ? limit.createsUsers
          : 'lists' in limit && limit.lists !== 'page'
            ? limit.lists
            : 1;
      if (perItem !== 1) {
        const argument = field.args.find((a) => a.name === perItem.perItemOf);
        const argumentType = argument?.type;
        const list =
          argumentType !== undefined && isNonNullType(argumentType)
            ? argumentType.ofType
            : argumentType;
        if (!isListType(list)) {
          problems.push(`${type}.${name}: perItemOf names no list argument`);
        }
      }
      if ('lists' in limit && limit.lists === 'page') {
        const sizes = field.args.filter((a) => a.name === 'first' || a.name === 'last');
        if (sizes.length === 0) problems.push(`${type}.${name} is paged but has no first/last`);
        for (const size of sizes) {
          if (size.defaultValue !== undefined && size.defaultValue !== PAGE_SIZE.default) {
            problems.push(
              `${type}.${name}(${size.name}:) defaults to ${String(size.defaultValue)}, not PAGE_SIZE.default (${PAGE_SIZE.default})`,
            );
          }
        }
      }
    }
  }
  return problems;
}

/** How deep lists and input objects nest in an argument's type (0 for a scalar or an enum). */
function inputDepth(type: GraphQLInputType, seen: Set<string> = new Set()): number {
  if (isNonNullType(type)) return inputDepth(type.ofType, seen);
  if (isListType(type)) return 1 + inputDepth(type.ofType as GraphQLInputType, seen);
  if (!isInputObjectType(type)) return 0;
  if (seen.has(type.name)) return Infinity; // a recursive input type has no bound
  const inner = Object.values(type.getFields()).map((f) =>
    inputDepth(f.type, new Set([...seen, type.name])),
  );
  return 1 + Math.max(0, ...inner);
}

test('every mutation and every field that returns a connection has a row in FIELD_LIMITS', () => {
  expect(fieldLimitProblems(schema)).toEqual([]);
});

test('the check bites: a new paged field or mutation without a row is named', () => {
  const extended = buildSchema(
    `${loadTypeDefs()}
    extend type Query { archivedUsers(first: Int): UserConnection }
    extend type Mutation { archiveUsers(inputs: [CreateUserInput!]!): CreateUsersPayload }`,
  );
  expect(fieldLimitProblems(extended)).toEqual([
    'Mutation.archiveUsers has no row in FIELD_LIMITS (src/limits.ts), though a mutation may create users or allocate',
    'Query.archivedUsers has no row in FIELD_LIMITS (src/limits.ts), though it returns a connection',
  ]);
});

test('the input bounds admit every argument the schema accepts', () => {
  const argumentTypes = Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .flatMap((type) => Object.values(type.getFields()))
    .flatMap((field) => field.args.map((argument) => argument.type));
  const widest = Math.max(
    ...Object.values(schema.getTypeMap())
      .filter(isInputObjectType)
      .map((type) => Object.keys(type.getFields()).length),
  );
  expect(widest).toBeLessThanOrEqual(INPUT.keysPerObject);
  expect(Math.max(...argumentTypes.map((type) => inputDepth(type)))).toBeLessThanOrEqual(
    INPUT.depth,
  );
  expect(INPUT.itemsPerList).toBeGreaterThanOrEqual(USERS_PER_BATCH);
  // A full createUsers batch: the list, 1,000 objects, 4 fields each.
  const createUserFields = Object.keys(
    (schema.getType('CreateUserInput') as { getFields(): object }).getFields(),
  ).length;
  expect(1 + USERS_PER_BATCH * (1 + createUserFields)).toBeLessThanOrEqual(INPUT.values);
});

test('the table of docs/operations.md states the numbers of src/limits.ts', () => {
  const n = (value: number) => value.toLocaleString('en-US');
  const expected: Record<string, string> = {
    'users created per request': `${n(USERS_PER_REQUEST.withToken)} (${n(USERS_PER_REQUEST.anonymous)} without a token in production)`,
    'inputs of one `createUsers`': n(USERS_PER_BATCH),
    '`allocateSequence` calls per request': n(ALLOCATIONS_PER_REQUEST),
    'values per `allocateSequence`': n(VALUES_PER_ALLOCATION),
    'gapless values per call': n(RESERVATIONS_PER_REQUEST),
    'items listed per request': n(LISTED_ITEMS_PER_REQUEST),
    'TRANSACTION group runs after a refusal': n(TRANSACTION_GROUP_RERUNS),
    'values read by `gaps` per request': n(SCANNED_VALUES_PER_REQUEST),
    'page size': `${n(PAGE_SIZE.default)} by default, at most ${n(PAGE_SIZE.max)}`,
    'ids of one `nodes`': n(NODES_PER_LIST),
    'batched operations': n(BATCHED_OPERATIONS),
    'document depth': n(DOCUMENT.depth),
    'document cost': n(DOCUMENT.cost),
    'aliases, directives': `${n(DOCUMENT.aliases)}, ${n(DOCUMENT.directives)}`,
    'document tokens': n(DOCUMENT.tokens),
    body: `\`BODY_LIMIT\`, ${DEFAULT_BODY_LIMIT} by default`,
    'input: keys of one object': n(INPUT.keysPerObject),
    'input: items of one list': n(INPUT.itemsPerList),
    'input: nesting of lists and objects': n(INPUT.depth),
    'input: characters of one string': n(INPUT.stringLength),
    'input: values in all': n(INPUT.values),
    'errors per answer': n(ERRORS.perResponse),
    'characters of one error message': n(ERRORS.messageLength),
  };
  const text = readFileSync(path.join(__dirname, '..', 'docs', 'operations.md'), 'utf8');
  const start = text.indexOf('## Per-request bounds');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const rows = new Map(
    [...section.matchAll(/^\| ([^|]+?) +\| ([^|]+?) +\| [^|]+\|$/gm)]
      .map((match) => [match[1], match[2]] as const)
      .filter(([bound]) => bound !== 'Bound' && !bound.startsWith('---')),
  );
  expect(Object.fromEntries(rows)).toEqual(expected);
  expect(loadConfig({}).BODY_LIMIT).toBe(DEFAULT_BODY_LIMIT);
});
