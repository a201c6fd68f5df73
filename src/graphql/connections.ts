/**
 * Relay cursor connections from the domain's pages: edges with cursors, a full PageInfo and, for
 * users, `totalCount` computed only when a client selects it (counting costs a database command).
 *
 * Cursors are opaque to clients but plain here: a user's id, a sequence's id; the components read
 * them back and refuse malformed ones (BAD_USER_INPUT on `after` or `before`).
 */
import type { DomainError } from '../errors';
import type { SequencePage, SequenceState } from '../sequences/index';
import type { User, UserPage } from '../users/index';
import type { MutationError } from './generated/schema-types';

export interface Edge<Node> {
  cursor: string;
  node: Node;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** What `UserConnection` resolves from: the page's edges and its lazy count. */
export interface UserConnectionSource {
  edges: Array<Edge<User>>;
  pageInfo: PageInfo;
  totalCount: () => Promise<number>;
}

function pageInfoOf(cursors: string[], hasNextPage: boolean, hasPreviousPage: boolean): PageInfo {
  return {
    hasNextPage,
    hasPreviousPage,
    startCursor: cursors[0] ?? null,
    endCursor: cursors.at(-1) ?? null,
  };
}

/** The edge of a user: also what a create payload hands a client to insert into a cached list. */
export const userEdge = (user: User): Edge<User> => ({ cursor: user.id, node: user });

export function userConnection(page: UserPage): UserConnectionSource {
  const edges = page.users.map(userEdge);
  return {
    edges,
    pageInfo: pageInfoOf(
      edges.map((edge) => edge.cursor),
      page.hasNextPage,
      page.hasPreviousPage,
    ),
    totalCount: () => page.totalCount(),
  };
}

/** A sequences edge: the sequence, or the error that says its counter cannot be read. */
export interface SequenceEdgeSource {
  cursor: string;
  node: SequenceState | null;
  error: MutationError | null;
}

/** What `SequenceConnection` resolves from: the page's edges and its lazy count. */
export interface SequenceConnectionSource {
  edges: SequenceEdgeSource[];
  pageInfo: PageInfo;
  totalCount: () => Promise<number>;
}

/** The edge of a sequence: also what `createSequence` hands a client to insert into a cached list. */
export const sequenceEdge = (sequence: SequenceState): SequenceEdgeSource => ({
  cursor: sequence.id,
  node: sequence,
  error: null,
});

/** Sequences page both ways, like users. An unreadable counter is an edge with its `error` (made by `errorOf`, the one error mapping). */
export function sequenceConnection(
  page: SequencePage,
  errorOf: (error: DomainError) => MutationError,
): SequenceConnectionSource {
  const edges = page.entries.map((entry) =>
    'sequence' in entry
      ? sequenceEdge(entry.sequence)
      : { cursor: entry.id, node: null, error: errorOf(entry.error) },
  );
  return {
    edges,
    pageInfo: pageInfoOf(
      edges.map((edge) => edge.cursor),
      page.hasNextPage,
      page.hasPreviousPage,
    ),
    totalCount: () => page.totalCount(),
  };
}
