/**
 * What the client tests read and write through urql, as a component would: a query's data with
 * the default request policy (cache-first), a mutation's data; an error fails the test.
 */
import type { Client } from '@urql/core';
import type { DocumentNode } from 'graphql';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read freely (ARCHITECTURE.md)
type Data = any;

const answer = (result: { data?: Data; error?: Error }) => {
  if (result.error !== undefined) throw result.error;
  return result.data;
};

export function urqlViews(client: Client) {
  return {
    view: async (query: DocumentNode, variables: object = {}): Promise<Data> =>
      answer(await client.query(query, variables).toPromise()),
    mutate: async (mutation: DocumentNode, variables: object = {}): Promise<Data> =>
      answer(await client.mutation(mutation, variables).toPromise()),
  };
}
