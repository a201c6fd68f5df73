/**
 * What a whole HTTP request asks for, read before any of it executes: how many users it would
 * create, how many sequence allocations it would make and how many items its pages could list,
 * summed over every alias, fragment and batched operation, and whether any string argument (inline
 * or through a variable) is not well-formed Unicode.
 *
 * Why before execution: batched operations run concurrently and aliases run one after another, so a
 * bound checked field by field lets the first fields through before a later one is refused; the HTTP
 * layer refuses the whole request instead, and nothing is created. Listed items are bounded for the
 * event loop's sake: graphql-armor's cost grows with depth, not page size, so 10 batched operations
 * of aliased 100-item pages (or pages of invitees under pages of users) passed it while answering
 * tens of thousands of items per request, and `/health` waited behind them. A page's size is its
 * `first` or `last` (else the default), multiplied through nesting. The counts are upper bounds
 * (`@skip`/`@include` are ignored; without an `operationName` every mutation counts). A document
 * that does not parse is counted as nothing: Apollo then refuses it with its own parse error.
 *
 * Lone surrogates: JSON and GraphQL escapes can produce UTF-16 halves without their pair; MongoDB
 * stores them as U+FFFD, so the stored text would differ from what was acknowledged (a key that can
 * never match again). graphql-js refuses them in a document with a syntax error; to name the argument
 * instead, each lone surrogate is swapped for U+FFFD (same length, so positions hold) and the
 * argument whose literal spans it is reported.
 *
 * Cost: clients send the same few documents over and over, so a parsed document is kept per query
 * text (a bounded LRU, like Apollo's own document cache), and the search for a malformed argument
 * runs only when the query or the variables hold a lone surrogate at all: a request then costs a
 * walk of the cached document, not a parse (issue 14).
 */
import { LRUCache } from 'lru-cache';
import {
  Kind,
  parse,
  visit,
  type DocumentNode,
  type IntValueNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { FIELD_LIMITS, PAGE_SIZE } from '../limits.js';

/** One operation as it arrives in a request body (or a GET query string). */
export interface RequestedOperation {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

export interface RequestPlan {
  usersCreated: number;
  sequenceAllocations: number;
  /** The most items the request's pages can list: page sizes multiplied through nesting, summed. */
  listedItems: number;
  /** The argument path of the first string that is not well-formed Unicode, e.g. `input.name`. */
  malformedString: string | null;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESCAPED_LONE_SURROGATE =
  /\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;
const REPLACEMENT = '\ufffd';
const ESCAPED_REPLACEMENT = '\\uFFFD';

type Variables = Record<string, unknown>;

/** Fields answering a page or a list, whatever their type, and how long it is (src/limits.ts). */
const LISTING_FIELDS = new Map(
  Object.values(FIELD_LIMITS).flatMap((fields) =>
    Object.entries(fields).flatMap(([name, limit]) =>
      'lists' in limit ? [[name, limit.lists] as const] : [],
    ),
  ),
);

/** How many users a root mutation field creates, given the item count of its arguments. */
function usersCreatedBy(field: string, count: (argument: string) => number): number {
  const limit = FIELD_LIMITS.Mutation[field];
  if (limit === undefined || !('createsUsers' in limit)) return 0;
  return limit.createsUsers === 1 ? 1 : count(limit.createsUsers.perItemOf);
}

function allocates(field: string): boolean {
  const limit = FIELD_LIMITS.Mutation[field];
  return limit !== undefined && 'allocates' in limit;
}

/** What one answering of a selection set asks for; its items are multiplied by the pages above. */
type SelectionTally = Pick<RequestPlan, 'usersCreated' | 'sequenceAllocations' | 'listedItems'>;

function variablesOf(operation: RequestedOperation): Variables {
  const { variables } = operation;
  return typeof variables === 'object' && variables !== null && !Array.isArray(variables)
    ? (variables as Variables)
    : {};
}

function isMalformed(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return LONE_SURROGATE.test(text);
}

/** The query with every lone surrogate (raw or escaped) replaced, and where they were. */
function withSurrogatesMarked(query: string): { text: string; positions: number[] } {
  const positions: number[] = [];
  const text = query
    .replace(LONE_SURROGATE, (_match, offset: number) => {
      positions.push(offset);
      return REPLACEMENT;
    })
    .replace(ESCAPED_LONE_SURROGATE, (_match, offset: number) => {
      positions.push(offset);
      return ESCAPED_REPLACEMENT;
    });
  return { text, positions };
}

/**
 * The path inside a JSON value where a malformed string is (keys included), or null. Iterative:
 * `JSON.parse` reads arrays nested far deeper than a recursive walk has stack for.
 */
function malformedIn(value: unknown, path: string): string | null {
  // Depth first, keys before their values, in order: the first malformed string is the one named.
  const pending: Array<[unknown, string]> = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, itemPath] = next;
    if (typeof item === 'string') {
      if (isMalformed(item)) return itemPath;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item).reverse()) {
        pending.push([child, `${itemPath}.${key}`], [key, `${itemPath}.${key}`]);
      }
    }
  }
  return null;
}

function malformedArgument(
  document: DocumentNode,
  variables: Variables,
  positions: number[],
): string | null {
  const spans = (node: ValueNode) =>
    node.loc !== undefined && positions.some((at) => at >= node.loc!.start && at < node.loc!.end);
  const inValue = (node: ValueNode, path: string): string | null => {
    switch (node.kind) {
      case Kind.VARIABLE:
        return malformedIn(variables[node.name.value], path);
      case Kind.STRING:
        return spans(node) ? path : null;
      case Kind.LIST:
        for (const [index, item] of node.values.entries()) {
          const found = inValue(item, `${path}.${index}`);
          if (found !== null) return found;
        }
        return null;
      case Kind.OBJECT:
        for (const field of node.fields) {
          const found = inValue(field.value, `${path}.${field.name.value}`);
          if (found !== null) return found;
        }
        return null;
      default:
        return null;
    }
  };
  // Nothing malformed anywhere: no argument can hold it (the common case, without a walk).
  const unused = malformedIn(variables, '$');
  if (positions.length === 0 && unused === null) return null;
  let found: string | null = null;
  visit(document, {
    Argument(argument) {
      found ??= inValue(argument.value, argument.name.value);
    },
  });
  if (found !== null) return found;
  // A variable no argument uses is refused by validation; still, it must not slip past this check.
  return unused === null ? null : unused.slice(2);
}

/**
 * The value a variable holds: the request's, else the operation's default. Own properties only, as
 * graphql-js reads them: `$constructor` or `$__proto__` not sent must not read what every object
 * inherits.
 */
function variableValue(name: string, variables: Variables, defaults: Variables): unknown {
  if (Object.hasOwn(variables, name)) return variables[name];
  return Object.hasOwn(defaults, name) ? defaults[name] : undefined;
}

/** How many items a list argument holds (a single value coerces to a list of one). */
function listLength(
  node: ValueNode | undefined,
  variables: Variables,
  defaults: Variables,
): number {
  if (node === undefined) return 0;
  if (node.kind === Kind.LIST) return node.values.length;
  if (node.kind === Kind.NULL) return 0;
  if (node.kind !== Kind.VARIABLE) return 1;
  const value = variableValue(node.name.value, variables, defaults);
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

function defaultsOf(operation: OperationDefinitionNode): Variables {
  // No prototype: a variable named `__proto__` is then a property like any other.
  const defaults: Variables = Object.create(null) as Variables;
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    if (value === undefined) continue;
    defaults[definition.variable.name.value] =
      value.kind === Kind.LIST ? value.values : value.kind === Kind.NULL ? null : value;
  }
  return defaults;
}

/** The whole number an Int argument holds (inline, or through a variable or its default). */
function intValue(node: ValueNode | undefined, variables: Variables, defaults: Variables) {
  const value =
    node?.kind === Kind.VARIABLE ? variableValue(node.name.value, variables, defaults) : node;
  const literal =
    (value as ValueNode | undefined)?.kind === Kind.INT
      ? Number((value as IntValueNode).value)
      : value;
  return typeof literal === 'number' && Number.isSafeInteger(literal) ? literal : null;
}

function planOperation(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Variables,
  plan: RequestPlan,
): void {
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition]] : [],
    ),
  );
  const defaults = defaultsOf(operation);
  // What a fragment asks for is the same at every spread (given whether it is at the mutation
  // root), so it is tallied once: walking every spread is exponential in nested fragments.
  const tallies = new Map<string, SelectionTally>();
  const inProgress = new Set<string>();
  const tally = (selections: SelectionSetNode, root: boolean): SelectionTally => {
    const total: SelectionTally = { usersCreated: 0, sequenceAllocations: 0, listedItems: 0 };
    const add = (part: SelectionTally) => {
      total.usersCreated += part.usersCreated;
      total.sequenceAllocations += part.sequenceAllocations;
      total.listedItems += part.listedItems;
    };
    for (const selection of selections.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) add(tally(selection.selectionSet, root));
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        const key = `${selection.name.value}@${root ? 'root' : 'nested'}`;
        // A fragment spread twice counts once per spread; a cycle is cut (validation refuses it).
        if (fragment === undefined || inProgress.has(key)) continue;
        let part = tallies.get(key);
        if (part === undefined) {
          inProgress.add(key);
          part = tally(fragment.selectionSet, root);
          inProgress.delete(key);
          tallies.set(key, part);
        }
        add(part);
      } else {
        const field = selection.name.value;
        const argumentNode = (name: string) =>
          selection.arguments?.find((a) => a.name.value === name)?.value;
        if (root) {
          const count = (name: string) => listLength(argumentNode(name), variables, defaults);
          total.usersCreated += usersCreatedBy(field, count);
          if (allocates(field)) total.sequenceAllocations += 1;
        }
        const below =
          selection.selectionSet === undefined
            ? null
            : tally(selection.selectionSet, false).listedItems;
        const lists = LISTING_FIELDS.get(field);
        if (lists !== undefined) {
          const size = Math.max(
            lists === 'page'
              ? (intValue(argumentNode('first'), variables, defaults) ??
                  intValue(argumentNode('last'), variables, defaults) ??
                  PAGE_SIZE.default)
              : listLength(argumentNode(lists.perItemOf), variables, defaults),
            0,
          );
          total.listedItems += size + size * (below ?? 0);
        } else total.listedItems += below ?? 0;
      }
    }
    return total;
  };
  const whole = tally(operation.selectionSet, operation.operation === 'mutation');
  plan.usersCreated += whole.usersCreated;
  plan.sequenceAllocations += whole.sequenceAllocations;
  plan.listedItems += whole.listedItems;
}

/** Parsed documents by query text (after marking), for texts that parse; about 8 MB of text at most. */
const documents = new LRUCache<string, DocumentNode>({
  max: 1_000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_document, text) => Math.max(1, text.length),
});

/** The document of `text`, parsed once per text while it stays in the cache; throws like `parse`. */
function parsed(text: string, maxTokens: number): DocumentNode {
  let document = documents.get(text);
  if (document === undefined) {
    document = parse(text, { maxTokens });
    documents.set(text, document);
  }
  return document;
}

/** Plans every operation of a request; `maxTokens` bounds parsing as Apollo's parser does. */
export function planRequest(operations: RequestedOperation[], maxTokens: number): RequestPlan {
  const plan: RequestPlan = {
    usersCreated: 0,
    sequenceAllocations: 0,
    listedItems: 0,
    malformedString: null,
  };
  for (const operation of operations) {
    if (typeof operation.query !== 'string') continue;
    const variables = variablesOf(operation);
    const marked = withSurrogatesMarked(operation.query);
    let document: DocumentNode;
    try {
      document = parsed(marked.text, maxTokens);
    } catch {
      continue;
    }
    plan.malformedString ??= malformedArgument(document, variables, marked.positions);
    const name = typeof operation.operationName === 'string' ? operation.operationName : null;
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      if (name !== null && definition.name?.value !== name) continue;
      planOperation(document, definition, variables, plan);
    }
  }
  return plan;
}
