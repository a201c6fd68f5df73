/**
 * Relay cursor connections from the domain's pages: edges with cursors, a full PageInfo and, for
 * users, `totalCount` computed only when a client selects it (counting costs a database command).
 *
 * Cursors are opaque to clients but plain here: a user's id, a sequence's id; the components read
 * them back and refuse malformed ones (BAD_USER_INPUT on `after` or `before`).
 */
import type { SequencePage, SequenceState } from '../sequences/index.js';
import type { User, UserPage } from '../users/index.js';

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

/** Sequences page forward only: items precede the page exactly when it starts after a cursor. */
export function sequenceConnection(
  page: SequencePage,
  after: string | null | undefined,
): { edges: Array<Edge<SequenceState>>; pageInfo: PageInfo } {
  const edges = page.sequences.map((sequence) => ({ cursor: sequence.id, node: sequence }));
  return {
    edges,
    pageInfo: pageInfoOf(
      edges.map((edge) => edge.cursor),
      page.hasNextPage,
      after !== null && after !== undefined,
    ),
  };
}
