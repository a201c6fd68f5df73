/**
 * What an operation asks for (src/graphql/request-bounds.ts `tallyOperation`) is walked once per
 * document when the walk reads no variable, and walked again for every request when it does: a
 * page size or a list given through a variable must be counted with the request's own value,
 * never with a value remembered from an earlier request of the same document.
 */
import { buildSchema, Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { tallyOperation } from '../../src/graphql/request-bounds';
import { loadTypeDefs } from '../../src/graphql/schema';
import { GAPS } from '../../src/limits';

const schema = buildSchema(loadTypeDefs());

function firstOperation(query: string): [DocumentNode, OperationDefinitionNode] {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error('no operation');
  return [document, operation];
}

describe('the tally of one document, request after request', () => {
  it('serves a tally that reads no variable from its first walk, for the same schema only', () => {
    const [document, operation] = firstOperation(
      'mutation($input: CreateUserInput!) { createUser(input: $input) { user { id } } }',
    );
    const first = tallyOperation(schema, document, operation, { input: { name: 'a' } });
    expect(first).toEqual({
      usersCreated: 1,
      sequenceAllocations: 0,
      listedItems: 0,
      scannedValues: 0,
    });
    expect(Object.isFrozen(first)).toBe(true);
    // Another request's variables do not matter: the same tally, not walked again.
    expect(tallyOperation(schema, document, operation, { input: { name: 'b' } })).toBe(first);
    // Another schema (another server in the same process) walks for itself.
    const other = buildSchema(loadTypeDefs());
    const again = tallyOperation(other, document, operation, {});
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('counts a page size given through a variable with each request its own value', () => {
    const [document, operation] = firstOperation(
      'query($first: Int = 7) { users(first: $first) { edges { node { id } } } }',
    );
    expect(tallyOperation(schema, document, operation, { first: 50 }).listedItems).toBe(50);
    expect(tallyOperation(schema, document, operation, { first: 3 }).listedItems).toBe(3);
    expect(tallyOperation(schema, document, operation, {}).listedItems).toBe(7);
  });

  it('counts the users of a list given through a variable with each request its own list', () => {
    const [document, operation] = firstOperation(
      'mutation($inputs: [CreateUserInput!]!) { createUsers(inputs: $inputs) { created } }',
    );
    const inputs = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `u${i}` }));
    expect(tallyOperation(schema, document, operation, { inputs: inputs(600) }).usersCreated).toBe(
      600,
    );
    expect(tallyOperation(schema, document, operation, { inputs: inputs(2) }).usersCreated).toBe(2);
  });
});

describe('the values gaps calls may read', () => {
  it('counts each gaps call as a full scan, multiplied through the lists above it', () => {
    const ids = Array.from({ length: 100 }, () => 'userid');
    const [nodes, nodesOperation] = firstOperation(
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Sequence { gaps(first: 1) { scannedThrough } } } }',
    );
    expect(tallyOperation(schema, nodes, nodesOperation, { ids })).toMatchObject({
      listedItems: 100 + 100 * 1,
      scannedValues: 100 * GAPS.idsScanned,
    });
    const [paged, pagedOperation] = firstOperation(
      '{ sequences(first: 3) { edges { node { a: gaps(first: 5) { complete } b: gaps { complete } } } } }',
    );
    expect(tallyOperation(schema, paged, pagedOperation, {})).toMatchObject({
      scannedValues: 3 * 2 * GAPS.idsScanned,
    });
    const [fragment, fragmentOperation] = firstOperation(
      '{ sequence(name: "userid") { ...G } } fragment G on Sequence { gaps { complete } }',
    );
    expect(tallyOperation(schema, fragment, fragmentOperation, {}).scannedValues).toBe(
      GAPS.idsScanned,
    );
  });
});
